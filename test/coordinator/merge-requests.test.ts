import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startMergeRequestFixture, type MergeRequestFixture } from './merge-requests-fixtures.ts';

type Json = Record<string, unknown>;

describe('merge requests API: open, show, edit, delete', () => {
  let fx: MergeRequestFixture;
  let featureTip: string;
  let milestoneId: number;
  const url = (suffix = '') => `/projects/${fx.project.id}/merge_requests${suffix}`;

  before(async () => {
    fx = await startMergeRequestFixture();
    featureTip = await fx.branch('feature');
    await fx.branch('other');
    milestoneId = Number((await fx.gantry.api('POST', `/projects/${fx.project.id}/milestones`, { body: { title: 'v1' } })).json.id);
  });
  after(() => fx.close());

  it('opens a request from a branch (201), GitLab-shaped, with head sha, labels, milestone, assignee and reviewer', async () => {
    const body = {
      source_branch: 'feature', target_branch: 'main', title: 'Add feature', description: '- [x] write\n- [ ] test', labels: 'backend,ui',
      milestone_id: milestoneId, assignee_ids: [fx.developer.id], reviewer_ids: [fx.maintainer.id], remove_source_branch: true, squash: true,
    };
    const created = await fx.gantry.api('POST', url(), { body, token: fx.developer.token });
    assert.equal(created.status, 201, created.text);
    const mr = created.json;
    assert.deepEqual(
      [mr.iid, mr.project_id, mr.source_project_id, mr.target_project_id, mr.state, mr.source_branch, mr.target_branch, mr.sha],
      [1, fx.project.id, fx.project.id, fx.project.id, 'opened', 'feature', 'main', featureTip],
    );
    assert.deepEqual([mr.labels, (mr.milestone as Json).title, (mr.author as Json).username], [['backend', 'ui'], 'v1', fx.developer.username]);
    assert.deepEqual([(mr.assignee as Json).id, (mr.assignees as Json[]).map((user) => user.id), (mr.reviewers as Json[]).map((user) => user.id)], [fx.developer.id, [fx.developer.id], [fx.maintainer.id]]);
    assert.deepEqual([mr.draft, mr.work_in_progress, mr.has_conflicts], [false, false, false]);
    // The answer shows the request as it stands after its refresh: the queued merge check may have started or ended already.
    assert.ok(['unchecked', 'checking', 'can_be_merged'].includes(String(mr.merge_status)), String(mr.merge_status));
    assert.ok(['unchecked', 'checking', 'mergeable'].includes(String(mr.detailed_merge_status)), String(mr.detailed_merge_status));
    assert.deepEqual([mr.force_remove_source_branch, mr.should_remove_source_branch, mr.squash, mr.discussion_locked], [true, null, true, null]);
    assert.deepEqual([mr.reference, mr.references], ['!1', { short: '!1', relative: '!1', full: 'mr/app!1' }]);
    assert.equal(mr.web_url, 'http://gantry.test/mr/app/-/merge_requests/1');
    assert.deepEqual(mr.task_completion_status, { count: 2, completed_count: 1 });
    assert.deepEqual([mr.merged_by, mr.merge_user, mr.merged_at, mr.closed_by, mr.closed_at, mr.merge_commit_sha, mr.squash_commit_sha], [null, null, null, null, null, null, null]);
    // The single answer: the author takes part, so is subscribed; the refresh ran before the answer (diff_refs, as GitLab's create answers them).
    const mainTip = String(((await fx.gantry.api('GET', `/projects/${fx.project.id}/repository/branches/main`)).json.commit as Json).id);
    assert.deepEqual(mr.diff_refs, { base_sha: mainTip, head_sha: featureTip, start_sha: mainTip });
    assert.deepEqual([mr.subscribed, mr.changes_count, mr.head_pipeline, mr.pipeline, mr.user], [true, '1', null, null, { can_merge: true }]);
    assert.equal('allow_collaboration' in mr, false, 'shown for a fork\'s request only');
    assert.deepEqual(Object.keys(mr.time_stats as Json), ['time_estimate', 'total_time_spent', 'human_time_estimate', 'human_total_time_spent']);
  });

  it('refuses a second open request for the same branches (409, GitLab\'s words), one branch into itself (422), and unknown branches (400)', async () => {
    const duplicate = await fx.gantry.api('POST', url(), { body: { source_branch: 'feature', target_branch: 'main', title: 'Again' } });
    assert.deepEqual([duplicate.status, duplicate.json], [409, { message: ['Another open merge request already exists for this source branch: !1'] }]);
    const itself = await fx.gantry.api('POST', url(), { body: { source_branch: 'main', target_branch: 'main', title: 'Self' } });
    assert.deepEqual([itself.status, itself.json], [422, { message: ["You can't use same project/branch for source and target"] }]);
    const noSource = await fx.gantry.api('POST', url(), { body: { source_branch: 'nope', target_branch: 'main', title: 'x' } });
    assert.deepEqual([noSource.status, noSource.json], [400, { message: { source_branch: ['Source branch "nope" does not exist'] } }]);
    const noTarget = await fx.gantry.api('POST', url(), { body: { source_branch: 'other', target_branch: 'nope', title: 'x' } });
    assert.deepEqual([noTarget.status, noTarget.json], [400, { message: { target_branch: ['Target branch "nope" does not exist'] } }]);
    assert.deepEqual((await fx.gantry.api('POST', url(), { body: { source_branch: 'other', target_branch: 'main' } })).json, { error: 'title is missing' });
    assert.deepEqual((await fx.gantry.api('POST', url(), { body: { title: 'x', target_branch: 'main' } })).json, { error: 'source_branch is missing' });
    // Nothing was stored by the refusals: the next request is !2.
    assert.equal((await fx.open({ source_branch: 'other', target_branch: 'feature', title: 'Stacked' })).iid, 2);
  });

  it('lets only those who push open requests; reads follow the project; unknown iids are 404', async () => {
    const body = { source_branch: 'other', target_branch: 'main', title: 'x' };
    assert.deepEqual([(await fx.gantry.api('POST', url(), { body, token: null })).status], [401]);
    for (const user of [fx.guest, fx.reporter]) assert.deepEqual((await fx.gantry.api('POST', url(), { body, token: user.token })).json, { message: '403 Forbidden' });
    assert.deepEqual((await fx.gantry.api('POST', url(), { body, token: fx.stranger.token })).json, { message: '404 Project Not Found' });
    assert.equal((await fx.gantry.api('GET', url('/1'), { token: fx.guest.token })).status, 200);
    assert.deepEqual((await fx.gantry.api('GET', url('/1'), { token: fx.stranger.token })).json, { message: '404 Project Not Found' });
    assert.deepEqual((await fx.gantry.api('GET', url('/1'), { token: null })).json, { message: '404 Project Not Found' });
    assert.deepEqual((await fx.gantry.api('GET', url('/99'))).json, { message: '404 Merge Request Not Found' });
    assert.deepEqual((await fx.gantry.api('PUT', url('/99'), { body: { title: 'x' } })).json, { message: '404 Merge Request Not Found' });
    assert.equal((await fx.gantry.api('GET', '/merge_requests', { token: null })).status, 401);
  });

  it('edits: title (a draft prefix makes a draft), labels, milestone, people, lock, retarget; close and reopen', async () => {
    const put = (body: Json, token?: string) => fx.gantry.api('PUT', url('/1'), { body, token });
    const renamed = (await put({ title: '[Draft] Add feature', description: 'done', add_labels: 'db', remove_labels: 'ui' }, fx.developer.token)).json;
    // The merge check runs from the task queue: a draft reads `unchecked` (or `checking` while it runs) until it has answered, then `draft_status`.
    const detailed = renamed.merge_status === 'unchecked' || renamed.merge_status === 'checking' ? renamed.merge_status : 'draft_status';
    assert.deepEqual([renamed.title, renamed.draft, renamed.work_in_progress, renamed.detailed_merge_status, renamed.labels, renamed.description], ['[Draft] Add feature', true, true, detailed, ['backend', 'db'], 'done']);
    const admin = (await put({ milestone_id: 0, assignee_id: 0, reviewer_ids: [fx.developer.id], discussion_locked: true, squash: false })).json;
    assert.deepEqual([admin.milestone, admin.assignees, (admin.reviewers as Json[]).map((user) => user.id), admin.discussion_locked, admin.squash], [null, [], [fx.developer.id], true, false]);
    const retargeted = (await put({ target_branch: 'other' })).json;
    assert.equal(retargeted.target_branch, 'other');
    assert.deepEqual((await put({ target_branch: 'gone' })).json, { message: { target_branch: ['Target branch "gone" does not exist'] } });
    assert.deepEqual((await put({ target_branch: 'feature' })).status, 422);
    const closed = (await put({ state_event: 'close' }, fx.maintainer.token)).json;
    assert.deepEqual([closed.state, (closed.closed_by as Json).username, typeof closed.closed_at, closed.detailed_merge_status], ['closed', fx.maintainer.username, 'string', 'not_open']);
    const reopened = (await put({ state_event: 'reopen' })).json;
    assert.deepEqual([reopened.state, reopened.closed_by, reopened.closed_at], ['opened', null, null]);
  });

  it('refuses empty and bad edits, and edits by Reporters who did not write the request', async () => {
    const empty = await fx.gantry.api('PUT', url('/1'), { body: {} });
    assert.equal(empty.status, 400);
    assert.match(String(empty.json.error), /at least one parameter must be provided/);
    assert.deepEqual((await fx.gantry.api('PUT', url('/1'), { body: { state_event: 'merge' } })).json, { error: 'state_event does not have a valid value' });
    assert.deepEqual((await fx.gantry.api('PUT', url('/1'), { body: { title: 'x' }, token: fx.reporter.token })).json, { message: '403 Forbidden' });
    assert.equal((await fx.gantry.api('PUT', url('/1'), { body: { title: 'x' }, token: null })).status, 401);
  });

  it('a reopen that collides with another open request for the same branches is 409', async () => {
    await fx.branch('twin');
    const one = await fx.open({ source_branch: 'twin', target_branch: 'main', title: 'one' });
    assert.equal((await fx.gantry.api('PUT', url(`/${one.iid}`), { body: { state_event: 'close' } })).status, 200);
    await fx.open({ source_branch: 'twin', target_branch: 'main', title: 'two' });
    const reopen = await fx.gantry.api('PUT', url(`/${one.iid}`), { body: { state_event: 'reopen' } });
    assert.equal(reopen.status, 409);
    assert.match(String((reopen.json.message as string[])[0]), /^Another open merge request already exists for this source branch/);
  });

  it('lists participants: author, assignees and reviewers, each once', async () => {
    const people = await fx.gantry.api('GET', url('/1/participants'), { token: fx.guest.token });
    assert.deepEqual(people.list.map((user) => user.username), [fx.developer.username]);
    await fx.gantry.api('PUT', url('/1'), { body: { assignee_ids: [fx.maintainer.id] } });
    assert.deepEqual((await fx.gantry.api('GET', url('/1/participants'))).list.map((user) => user.username), [fx.developer.username, fx.maintainer.username]);
    assert.equal((await fx.gantry.api('GET', url('/99/participants'))).status, 404);
  });

  it('deletes for Owners only (204), and the request is gone', async () => {
    assert.deepEqual((await fx.gantry.api('DELETE', url('/2'), { token: fx.maintainer.token })).json, { message: '403 Forbidden' });
    assert.equal((await fx.gantry.api('DELETE', url('/2'), { token: null })).status, 401);
    assert.equal((await fx.gantry.api('DELETE', url('/2'))).status, 204);
    assert.equal((await fx.gantry.api('GET', url('/2'))).status, 404);
    assert.equal((await fx.gantry.api('DELETE', url('/2'))).status, 404);
  });
});
