import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { drivePythonGitlab } from '../helpers/python-gitlab.ts';

/** Notes on issues as python-gitlab (Debian's python3-gitlab) drives them, through test/fixtures/python-gitlab/notes.py. */
describe('notes on issues through python-gitlab', () => {
  let gantry: TestCoordinator;
  let seen: Record<string, unknown>;

  before(async () => {
    gantry = await startTestCoordinator();
    seen = await drivePythonGitlab(gantry, 'notes.py');
  });
  after(() => gantry.close());

  it('comments, lists every page (system notes included), edits and deletes', () => {
    assert.deepEqual(seen.created, ['Seen it too', false, 1, 'root']);
    const labelNote = (seen.bodies as string[]).find((body) => body.startsWith('removed ~'));
    assert.deepEqual(seen.bodies, ['Seen it too', 'Note 2', 'Note 3', 'Note 4', 'closed', labelNote]);
    assert.match(labelNote ?? '', /^removed ~\d+ label$/);
    assert.equal(seen.edited, 'Seen it too, edited');
    assert.deepEqual(seen.deleted, [404, '404 Note Not Found']);
    assert.equal(seen.user_notes_count, 3);
  });
});
