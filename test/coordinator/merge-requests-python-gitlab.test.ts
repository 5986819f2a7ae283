import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { drivePythonGitlab } from '../helpers/python-gitlab.ts';

/**
 * Merge requests as python-gitlab (Debian's python3-gitlab 3.12) drives them, unmodified, over a
 * real port: test/fixtures/python-gitlab/drive_merge_requests.py pages by 2, so every list also
 * follows the Link header.
 */
describe('merge requests through python-gitlab', () => {
  let gantry: TestCoordinator;
  let seen: Record<string, unknown>;

  before(async () => {
    gantry = await startTestCoordinator();
    seen = await drivePythonGitlab(gantry, 'drive_merge_requests.py');
  });
  after(() => gantry.close());

  it('opens requests with labels, a milestone, an assignee and a reviewer; refuses a duplicate with 409', () => {
    assert.deepEqual(seen.created, [1, 'opened', ['backend', 'ui'], 'v1.0', 'dev', ['dev'], true, false, 'root/service!1']);
    assert.deepEqual(seen.duplicate, [409, "['Another open merge request already exists for this source branch: !1']"]);
  });

  it('shows and saves a request, and closes one', () => {
    // The feature branch adds one file: changes_count is git's count, as a string.
    assert.deepEqual(seen.shown, ['Add feature', true, '1', true, { count: 1, completed_count: 0 }]);
    assert.deepEqual(seen.saved, ['Add the feature', ['backend']]);
    assert.deepEqual(seen.closed, ['closed', 'root']);
  });

  it('lists with the filters the client sends, the milestone and global lists, and participants', () => {
    assert.deepEqual(seen.list_all, [1, 2, 3]);
    assert.deepEqual(seen.list_opened, [1, 2]);
    assert.deepEqual(seen.list_labels, [1]);
    assert.deepEqual(seen.list_wip, [2]);
    assert.deepEqual(seen.list_milestone, [1]);
    assert.deepEqual(seen.list_simple, ['created_at', 'description', 'id', 'iid', 'project_id', 'state', 'title', 'updated_at', 'web_url']);
    assert.deepEqual(seen.global_mine, [1, 2, 3]);
    assert.deepEqual(seen.participants, ['dev', 'root']);
  });

  it("lists an issue's closing and related requests (closed_by, related_merge_requests)", () => {
    assert.deepEqual(seen.issue_closed_by, [1]);
    assert.deepEqual(seen.issue_related, [1, 2]);
  });

  it("lists a request's diff versions newest first and gets one with its commits and diffs (mr.diffs)", () => {
    assert.deepEqual(seen.versions, [[true, 'collected', '2'], [true, 'collected', '1']]);
    assert.deepEqual(seen.version, [true, [true, false], ['feature.txt', 'more.txt']]);
    assert.deepEqual(seen.version_missing, [404, '404 Not found']);
  });

  it('deletes as an Owner', () => {
    assert.deepEqual(seen.after_delete, [1, 3]);
  });
});
