import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_MESSAGE_CHARS, MAX_REFERENCES_PER_COMMIT, parseCommitReferences } from '../../../src/coordinator/services/planning/reference-parser.ts';

const own = (...iids: number[]) => iids.map((iid) => ({ projectPath: null, iid }));
const closing = (message: string) => parseCommitReferences(message).closing;
const mentioned = (message: string) => parseCommitReferences(message).mentioned;

describe('commit message references', () => {
  it('reads #iid, project#iid and group/project#iid anywhere, each once, in order', () => {
    assert.deepEqual(mentioned('Fix crash (#12)\n\nSee lib#3, group/sub/app#4 and #12 again.'), [
      { projectPath: null, iid: 12 }, { projectPath: 'lib', iid: 3 }, { projectPath: 'group/sub/app', iid: 4 },
    ]);
  });

  it('ignores what GitLab does not read as an issue reference', () => {
    for (const text of ['#0', '#12abc', 'a#b', 'é#3', 'foo//bar#1', '/x#2', 'x/#2', '-x#1', '#', '#99999999999', 'issue#', '`#`']) {
      assert.deepEqual(mentioned(text), [], text);
    }
  });

  it('reads the default closing pattern: every keyword form, an optional colon, "issue(s)", lists with commas and "and", any case', () => {
    for (const keyword of ['Close', 'Closes', 'Closed', 'Closing', 'Fix', 'Fixes', 'Fixed', 'Fixing', 'Resolve', 'Resolves', 'Resolved', 'Resolving', 'Implement', 'Implements', 'Implemented', 'Implementing']) {
      assert.deepEqual(closing(`${keyword} #7`), own(7), keyword);
      assert.deepEqual(closing(`${keyword.toUpperCase()}: #7`), own(7), `${keyword.toUpperCase()}:`);
    }
    assert.deepEqual(closing('This closes #1, #2 and #3'), own(1, 2, 3));
    assert.deepEqual(closing('fixes issues #4,#5 , and #6'), own(4, 5, 6));
    assert.deepEqual(closing('Resolves issue  #8 and group/app#9'), [{ projectPath: null, iid: 8 }, { projectPath: 'group/app', iid: 9 }]);
  });

  it('closes only what the phrase names: not later mentions, not near-miss keywords', () => {
    assert.deepEqual(parseCommitReferences('Fixes #1. Related to #2'), { mentioned: own(1, 2), closing: own(1) });
    for (const text of ['closedd #1', 'prefix #1', 'unfixed #1', 'Fixes#1', 'Fixes  the #1', 'Closes :#1']) assert.deepEqual(closing(text), [], text);
  });

  it('reads at most MAX_MESSAGE_CHARS of a 1 MiB message and at most MAX_REFERENCES_PER_COMMIT issues', () => {
    const filler = 'a/'.repeat(300) + '#1x ' + 'fix '.repeat(50) + 'closes '.repeat(20);
    let message = 'Closes #1\n';
    while (message.length < 1024 * 1024) message += filler;
    const tail = '\nCloses #424242';
    const parsed = parseCommitReferences(message + tail);
    assert.deepEqual(parsed, { mentioned: own(1), closing: own(1) });
    assert.ok(message.length > MAX_MESSAGE_CHARS);

    const many = Array.from({ length: MAX_REFERENCES_PER_COMMIT + 20 }, (_, index) => `#${index + 1}`).join(' ');
    const capped = parseCommitReferences(`Fixes ${many}`);
    assert.equal(capped.mentioned.length, MAX_REFERENCES_PER_COMMIT);
    assert.deepEqual(capped.closing, capped.mentioned);
  });
});
