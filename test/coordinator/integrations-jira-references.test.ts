import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jiraReferences } from '../../src/coordinator/services/integrations/jira.ts';

describe('Jira keys in commit messages (GitLab\'s reference and closing patterns)', () => {
  it('finds each key once, first mention first; lowercase keys and keys inside words are not keys', () => {
    assert.deepEqual(jiraReferences('PROJ-1 and OPS_2-30, again PROJ-1; proj-3 XPROJ-4x A-5 P9-6').mentioned, ['PROJ-1', 'OPS_2-30', 'P9-6']);
  });

  it('closes the keys after a closing word, through commas and "and", and no further', () => {
    const references = jiraReferences('Fixes: PROJ-1, PROJ-2 and issue PROJ-3 PROJ-4\nresolving PROJ-5\nprefix closes PROJ-6\nclosesPROJ-7 closed PROJ-8');
    assert.deepEqual(references.closing, ['PROJ-1', 'PROJ-2', 'PROJ-3', 'PROJ-5', 'PROJ-6', 'PROJ-8']);
    assert.ok(references.mentioned.includes('PROJ-4') && !references.closing.includes('PROJ-4'), 'a key after a bare space is mentioned only');
  });

  it('reads a long message in bounded work: keys past 100,000 characters are ignored', () => {
    const long = `closes PROJ-1 ${'A'.repeat(200_000)} closes PROJ-2`;
    assert.deepEqual(jiraReferences(long), { mentioned: ['PROJ-1'], closing: ['PROJ-1'] });
  });
});
