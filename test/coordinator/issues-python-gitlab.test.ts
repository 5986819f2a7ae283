import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { drivePythonGitlab } from '../helpers/python-gitlab.ts';

/**
 * Issues, labels and milestones as python-gitlab (Debian's python3-gitlab 3.12) drives them,
 * unmodified, over a real port: test/fixtures/python-gitlab/drive_issues.py pages by 2, so
 * every list also follows the Link header.
 */
describe('issues, labels and milestones through python-gitlab', () => {
  let gantry: TestCoordinator;
  let seen: Record<string, unknown>;

  before(async () => {
    gantry = await startTestCoordinator();
    seen = await drivePythonGitlab(gantry, 'drive_issues.py');
  });
  after(() => gantry.close());

  it('creates, reads, renames and deletes labels', () => {
    assert.deepEqual(seen.label_get, ['feature', '#008000', 2], 'a named colour is answered as #rrggbb');
    assert.deepEqual(seen.label_saved, ['enhancement', '#5cb85c']);
    assert.deepEqual(seen.labels, [['bug', '#d9534f'], ['enhancement', '#5cb85c']]);
  });

  it('creates and edits milestones', () => {
    assert.deepEqual(seen.milestones, [[1, 'v1.0', 'active'], [2, 'v2.0', 'active']]);
    assert.equal(seen.milestone_timestamp_day, '2031-03-04', 'a due_date sent as a timestamp is its day');
  });

  it('opens issues with labels, a milestone, assignees and tasks; unknown labels are created', () => {
    assert.deepEqual(seen.created, [1, ['bug', 'urgent'], 'v1.0', ['reporter'], 'opened', 'root']);
    assert.deepEqual(seen.tasks, [true, { count: 2, completed_count: 1 }]);
    assert.deepEqual(seen.iids, [1, 2, 3]);
    assert.equal(seen.urgent_colour, '#428bca', 'the default colour of a label created by naming it');
  });

  it('lists with every filter the client sends', () => {
    assert.deepEqual(seen.list_all, [1, 2, 3]);
    assert.deepEqual(seen.list_labels, [1], 'labels are ANDed');
    assert.deepEqual(seen.list_no_labels, [3]);
    assert.deepEqual(seen.list_milestone, [1, 2]);
    assert.deepEqual(seen.list_no_milestone, [3]);
    assert.deepEqual(seen.list_assignee, [1]);
    assert.deepEqual(seen.list_search, [2]);
    assert.deepEqual(seen.list_iids, [1, 3]);
    assert.deepEqual(seen.list_order, [1, 2, 3]);
    assert.deepEqual(seen.global_opened, [[true, 1], [true, 2], [true, 3]]);
    assert.equal(seen.total_header, 3);
  });

  it('updates, relabels, closes and reopens', () => {
    assert.deepEqual(seen.updated, ['Dark mode everywhere', ['enhancement', 'ui'], 'v2.0']);
    assert.deepEqual(seen.add_remove, ['bug', 'enhancement']);
    assert.deepEqual(seen.closed, ['closed', 'root', true]);
    assert.deepEqual(seen.list_closed, [1]);
    assert.deepEqual(seen.reopened, ['opened', null]);
  });

  it("lists a milestone's issues, closes the milestone, and counts issues per label", () => {
    assert.deepEqual(seen.milestone_issues, [1]);
    assert.deepEqual(seen.milestone_closed, ['closed', ['v2.0']]);
    assert.deepEqual(seen.label_counts, [['bug', 2, 0], ['enhancement', 1, 0], ['ui', 0, 0], ['urgent', 1, 0]]);
  });

  it('deletes as an administrator, not as a Developer; refuses an unknown state_event', () => {
    assert.deepEqual(seen.after_delete, [1, 2]);
    assert.equal(seen.deleted_get, 404);
    assert.deepEqual(seen.developer_created, [4, 'reporter']);
    assert.deepEqual(seen.developer_created_by_me, [4]);
    assert.equal(seen.developer_delete, 403);
    assert.equal(seen.bad_state_event, 400);
  });

  it('reads a reply by id through its thread and edits it', () => {
    assert.deepEqual(seen.thread_note, [true, ['Which palette?', 'The darker one']]);
  });
});
