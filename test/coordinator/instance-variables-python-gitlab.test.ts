import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { drivePythonGitlab } from '../helpers/python-gitlab.ts';

/**
 * The instance's CI variables as python-gitlab (Debian's python3-gitlab 3.12) drives them,
 * unmodified, over a real port: test/fixtures/python-gitlab/drive_instance_variables.py,
 * including the reset its own functional test suite starts every session with.
 */
describe('instance CI variables through python-gitlab', () => {
  let gantry: TestCoordinator;
  let seen: Record<string, unknown>;

  before(async () => {
    gantry = await startTestCoordinator();
    seen = await drivePythonGitlab(gantry, 'drive_instance_variables.py');
  });
  after(() => gantry.close());

  it('lists, creates, gets and updates them, through the manager and through a saved object', () => {
    assert.deepEqual(seen.empty, []);
    assert.deepEqual(seen.created, ['GREETING', 'hello', 'env_var', false, false]);
    assert.deepEqual(seen.get, ['SECRET_TOKEN', 'Zm9vYmFyYmF6', 'env_var', true, true]);
    assert.deepEqual(seen.saved, ['GREETING', 'hello-again', 'file', false, false]);
    assert.equal(seen.updated, 'YmF6cXV4Zm9v');
    assert.deepEqual(seen.listed, ['GREETING', 'SECRET_TOKEN']);
  });

  it('sees a duplicate key refused and a non-administrator denied', () => {
    assert.deepEqual(seen.duplicate, [400, "{'key': ['(GREETING) has already been taken']}"]);
    assert.equal(seen.as_user, 403);
  });

  it("deletes every one as the client's functional-test reset does", () => {
    assert.deepEqual(seen.after_reset, []);
    assert.equal(seen.deleted_get, 404);
  });
});
