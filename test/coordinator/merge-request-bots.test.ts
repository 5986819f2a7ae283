import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestCoordinator } from '../helpers/coordinator.ts';
import { startMergeRequestFixture, type MergeRequestFixture } from './merge-requests-fixtures.ts';

/**
 * The exact requests two bots make of GitLab's merge request API, and the fields they read of the
 * answers (neither package is installed: the calls are copied from their sources).
 * - danger-js, source/platforms/gitlab/GitLabAPI.ts and source/platforms/GitLab.ts (through
 *   @gitbeaker/node): show, commits, approvals (`MergeRequestApprovals.configuration`), changes,
 *   notes (list, create, edit, delete), inline comments (`MergeRequestDiscussions.create` with a
 *   text position on the request's diff refs), the current user.
 * - renovate, lib/modules/platform/gitlab/index.ts, pr-cache.ts, merge-request.ts and utils.ts
 *   (`prInfo`, the zod schema `GitLabMergeRequest`): the PR cache list, create, show with
 *   `include_diverged_commits_count=1`, the automerge poll and merge, assignees in the query,
 *   labels, comments, `approvePr` (`POST .../approve` when `autoApprove` is set).
 */
describe('merge requests as danger-js and renovate call them', () => {
  let fixture: MergeRequestFixture;
  let gantry: TestCoordinator;
  let repo: string;
  let iid: number;

  before(async () => {
    fixture = await startMergeRequestFixture();
    gantry = fixture.gantry;
    repo = encodeURIComponent(`${fixture.group.full_path}/${fixture.project.path}`);
    await fixture.branch('renovate/lodash-4.x');
    // renovate's createPr body: labels joined with commas, remove_source_branch, squash from the project.
    const created = await gantry.api('POST', `/projects/${repo}/merge_requests`, {
      body: { source_branch: 'renovate/lodash-4.x', target_branch: 'main', remove_source_branch: true, title: 'Update lodash', description: 'body', labels: 'deps,bot', squash: false },
    });
    assert.equal(created.status, 201, created.text);
    iid = Number(created.json.iid);
  });
  after(() => fixture.close());

  it('renovate: the PR cache list, findPr by source branch and getMR read the fields prInfo and its schema need', async () => {
    const cache = await gantry.api('GET', `/projects/${repo}/merge_requests?per_page=100&order_by=updated_at&sort=desc&scope=created_by_me`);
    assert.equal(cache.status, 200, cache.text);
    const [entry] = cache.list;
    assert.ok(entry);
    for (const field of ['iid', 'title', 'description', 'state', 'source_branch', 'target_branch', 'created_at', 'updated_at', 'assignees', 'reviewers', 'labels', 'sha']) assert.ok(field in entry, field);
    assert.deepEqual(entry.labels, ['bot', 'deps']);
    assert.match(String(entry.sha), /^[0-9a-f]{40}$/);
    // The cache keeps updated_at with its milliseconds cut off and asks again with updated_after.
    const since = String(entry.updated_at).replace(/\.\d\d\dZ$/, 'Z');
    const again = await gantry.api('GET', `/projects/${repo}/merge_requests?per_page=100&order_by=updated_at&sort=desc&updated_after=${since}&scope=created_by_me`);
    assert.deepEqual(again.list.map((mr) => mr.iid), [iid]);

    const bySource = await gantry.api('GET', `/projects/${repo}/merge_requests?source_branch=renovate/lodash-4.x&state=opened`);
    assert.deepEqual(bySource.list.map((mr) => mr.iid), [iid]);

    const shown = await gantry.api('GET', `/projects/${repo}/merge_requests/${iid}?include_diverged_commits_count=1`);
    assert.equal(shown.status, 200, shown.text);
    assert.equal(shown.json.diverged_commits_count, 0, 'the source branch has every commit of main');
    assert.ok(!('diverged_commits_count' in (await gantry.api('GET', `/projects/${repo}/merge_requests/${iid}`)).json), 'only when asked');
    const onMain = { branch: 'main', commit_message: 'meanwhile on main', actions: [{ action: 'create', file_path: 'main-only.txt', content: 'm' }] };
    assert.equal((await gantry.api('POST', `/projects/${repo}/repository/commits`, { body: onMain })).status, 201);
    const diverged = await gantry.api('GET', `/projects/${repo}/merge_requests/${iid}?include_diverged_commits_count=true`);
    assert.equal(diverged.json.diverged_commits_count, 1, 'one commit on main the source lacks');
    assert.equal(typeof shown.json.merge_status, 'string');
    assert.ok(shown.json.head_pipeline === null || typeof shown.json.head_pipeline === 'object');
  });

  it('renovate: the automerge poll reads detailed_merge_status and pipeline, then PUT merge with its two flags', async () => {
    const poll = await gantry.api('GET', `/projects/${repo}/merge_requests/${iid}`);
    assert.ok(['mergeable', 'unchecked', 'checking'].includes(String(poll.json.detailed_merge_status)), String(poll.json.detailed_merge_status));
    assert.ok('pipeline' in poll.json);
    // No pipeline at all: GitLab merges at once, as renovate's mergePr expects.
    const merge = await gantry.api('PUT', `/projects/${repo}/merge_requests/${iid}/merge`, { body: { should_remove_source_branch: true, merge_when_pipeline_succeeds: true } });
    assert.equal(merge.status, 200, merge.text);
    assert.equal(merge.json.state, 'merged');
  });

  it('renovate: with pipelines required, the automerge poll sees ci_still_running while the pipeline runs, then merge waits for it', async () => {
    const settings = await gantry.api('PUT', `/projects/${repo}`, { body: { only_allow_merge_if_pipeline_succeeds: true } });
    assert.equal(settings.status, 200, settings.text);
    const head = await fixture.branch('renovate/express-5.x');
    const created = await gantry.api('POST', `/projects/${repo}/merge_requests`, { body: { source_branch: 'renovate/express-5.x', target_branch: 'main', remove_source_branch: true, title: 'Update express' } });
    assert.equal(created.status, 201, created.text);
    const number = Number(created.json.iid);
    const running = await gantry.api('POST', `/projects/${repo}/statuses/${head}`, { body: { state: 'running', ref: 'renovate/express-5.x', name: 'renovate/ci' } });
    assert.equal(running.status, 201, running.text);
    // tryPrAutomerge's poll: detailed_merge_status in [mergeable, ci_still_running, not_approved] (and a pipeline; it merges after its retries regardless).
    let poll = await gantry.api('GET', `/projects/${repo}/merge_requests/${number}`);
    for (let attempt = 0; attempt < 50 && ['unchecked', 'checking'].includes(String(poll.json.detailed_merge_status)); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      poll = await gantry.api('GET', `/projects/${repo}/merge_requests/${number}`);
    }
    assert.equal(poll.json.detailed_merge_status, 'ci_still_running', poll.text);
    const merge = await gantry.api('PUT', `/projects/${repo}/merge_requests/${number}/merge`, { body: { should_remove_source_branch: true, merge_when_pipeline_succeeds: true } });
    assert.equal(merge.status, 200, merge.text);
    assert.deepEqual([merge.json.state, merge.json.merge_when_pipeline_succeeds], ['opened', true]);
    // mergePr (no automerge): a required pipeline still running is GitLab's 405.
    const now = await gantry.api('PUT', `/projects/${repo}/merge_requests/${number}/merge`, { body: { should_remove_source_branch: true } });
    assert.equal(now.status, 405, now.text);
    assert.equal((await gantry.api('PUT', `/projects/${repo}`, { body: { only_allow_merge_if_pipeline_succeeds: false } })).status, 200);
  });

  it('renovate: updatePr, assignees in the query string, reviewers, labels', async () => {
    await fixture.branch('renovate/react-18.x');
    const created = await fixture.open({ source_branch: 'renovate/react-18.x', target_branch: 'main', title: 'Update react' });
    const number = Number(created.iid);
    const updated = await gantry.api('PUT', `/projects/${repo}/merge_requests/${number}`, {
      body: { title: 'Update react to v18', description: 'new body', add_labels: ['deps'], remove_labels: ['none'] },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(updated.json.labels, ['deps']);
    const assigned = await gantry.api('PUT', `/projects/${repo}/merge_requests/${number}?assignee_ids%5B%5D=${fixture.developer.id}`);
    assert.equal(assigned.status, 200, assigned.text);
    assert.equal((assigned.json.assignee as { id: number } | null)?.id, fixture.developer.id);
    const reviewed = await gantry.api('PUT', `/projects/${repo}/merge_requests/${number}`, { body: { reviewer_ids: [fixture.maintainer.id] } });
    assert.deepEqual((reviewed.json.reviewers as Array<{ username: string }>).map((user) => user.username), [fixture.maintainer.username]);
    const relabelled = await gantry.api('PUT', `/projects/${repo}/merge_requests/${number}`, { body: { labels: '' } });
    assert.deepEqual(relabelled.json.labels, []);
    const closed = await gantry.api('PUT', `/projects/${repo}/merge_requests/${number}`, { body: { title: 'Update react to v18', description: 'x', state_event: 'close' } });
    assert.equal(closed.json.state, 'closed');
  });

  it('renovate: ensureComment lists, adds, edits and removes notes by body', async () => {
    const notes = `/projects/${repo}/merge_requests/${iid}/notes`;
    const added = await gantry.api('POST', notes, { body: { body: '### Topic\n\ncontent' } });
    assert.equal(added.status, 201, added.text);
    const listed = await gantry.api('GET', notes);
    const mine = listed.list.find((note) => String(note.body).startsWith('### Topic\n\n'));
    assert.ok(mine, listed.text);
    const edited = await gantry.api('PUT', `${notes}/${String(mine.id)}`, { body: { body: '### Topic\n\nnew content' } });
    assert.equal(edited.status, 200, edited.text);
    assert.equal((await gantry.api('DELETE', `${notes}/${String(mine.id)}`)).status, 204);
  });

  it('danger-js: show, commits, approvals, changes and notes with the fields its DSL maps', async () => {
    await fixture.branch('danger');
    const created = await fixture.open({ source_branch: 'danger', target_branch: 'main', title: 'Danger checks this' });
    const number = Number(created.iid);
    const base = `/projects/${repo}/merge_requests/${number}`;
    const user = await gantry.api('GET', '/user');
    const mr = await gantry.api('GET', base);
    const diffRefs = mr.json.diff_refs as { base_sha: string; start_sha: string; head_sha: string };
    for (const sha of [diffRefs.base_sha, diffRefs.start_sha, diffRefs.head_sha]) assert.match(sha, /^[0-9a-f]{40}$/);

    const commits = await gantry.api('GET', `${base}/commits`);
    assert.equal(commits.status, 200, commits.text);
    const [commit] = commits.list;
    assert.ok(commit);
    for (const field of ['id', 'author_name', 'author_email', 'authored_date', 'committer_name', 'committer_email', 'committed_date', 'message', 'parent_ids']) assert.ok(field in commit, field);

    // MergeRequestApprovals.configuration(project, { mergerequestIid }): GitLab's free tier answers no rules and nobody who approved.
    const approvals = await gantry.api('GET', `${base}/approvals`);
    assert.equal(approvals.status, 200, approvals.text);
    assert.equal(approvals.json.iid, number);
    assert.deepEqual(approvals.json.approved_by, []);
    assert.equal(approvals.json.approvals_required, 0);
    assert.equal(approvals.json.approved, true);

    const changes = await gantry.api('GET', `${base}/changes`);
    const [change] = changes.json.changes as Array<Record<string, unknown>>;
    assert.deepEqual([change?.new_path, change?.new_file, change?.deleted_file], ['danger.txt', true, false]);

    // createInlineComment: a discussion with a text position on the request's diff refs, new_line only for an added line.
    const inline = await gantry.api('POST', `${base}/discussions`, {
      body: { body: 'danger inline', position: { position_type: 'text', ...diffRefs, new_path: 'danger.txt', old_path: 'danger.txt', new_line: 1 } },
    });
    assert.equal(inline.status, 201, inline.text);
    const [inlineNote] = inline.json.notes as Array<Record<string, unknown>>;
    assert.deepEqual([inlineNote?.type, (inlineNote?.position as { new_line: number }).new_line], ['DiffNote', 1]);
    const discussions = await gantry.api('GET', `${base}/discussions`);
    assert.ok(discussions.list.some((thread) => thread.id === inline.json.id), discussions.text);

    const note = await gantry.api('POST', `${base}/notes`, { body: { body: 'danger-id-default; the report' } });
    assert.equal(note.status, 201, note.text);
    const listed = await gantry.api('GET', `${base}/notes`);
    // getDangerNotes keeps notes with system false, type null, its user's id and its id marker.
    const dangers = listed.list.filter((entry) => entry.system === false && entry.type === null && (entry.author as { id: number }).id === user.json.id && String(entry.body).includes('danger-id-default'));
    assert.deepEqual(dangers.map((entry) => entry.id), [note.json.id]);
    assert.equal((await gantry.api('PUT', `${base}/notes/${String(note.json.id)}`, { body: { body: 'danger-id-default; updated' } })).status, 200);
    assert.equal((await gantry.api('DELETE', `${base}/notes/${String(note.json.id)}`)).status, 204);
  });

  it("renovate's approvePr: POST approve (with the head sha) shows in approvals; again is 401, a stale sha 409; unapprove takes it back", async () => {
    await fixture.branch('renovate/approve-me');
    const created = await fixture.open({ source_branch: 'renovate/approve-me', target_branch: 'main', title: 'Update approve-me' });
    const base = `/projects/${repo}/merge_requests/${String(created.iid)}`;
    const head = String((await gantry.api('GET', base)).json.sha);
    const stale = await gantry.api('POST', `${base}/approve`, { body: { sha: 'c'.repeat(40) }, token: fixture.maintainer.token });
    assert.deepEqual([stale.status, stale.json], [409, { message: `SHA does not match HEAD of source branch: ${'c'.repeat(40)}` }]);
    const approved = await gantry.api('POST', `${base}/approve`, { body: { sha: head }, token: fixture.maintainer.token });
    assert.equal(approved.status, 201, approved.text);
    assert.deepEqual((approved.json.approved_by as Array<{ user: { username: string } }>).map((entry) => entry.user.username), [fixture.maintainer.username]);
    assert.deepEqual([approved.json.user_has_approved, approved.json.user_can_approve, approved.json.approved], [true, false, true]);
    const again = await gantry.api('POST', `${base}/approve`, { token: fixture.maintainer.token });
    assert.deepEqual([again.status, again.json], [401, { message: '401 Unauthorized' }]);
    const byStranger = await gantry.api('POST', `${base}/approve`, { token: fixture.stranger.token });
    assert.equal(byStranger.status, 404, 'a stranger does not see the private project');
    const shown = await gantry.api('GET', `${base}/approvals`, { token: fixture.developer.token });
    assert.deepEqual([shown.json.user_has_approved, shown.json.user_can_approve, (shown.json.approved_by as unknown[]).length], [false, true, 1]);
    assert.deepEqual((await gantry.api('GET', `${base}/approval_state`)).json, { approval_rules_overwritten: false, rules: [] });
    const taken = await gantry.api('POST', `${base}/unapprove`, { token: fixture.maintainer.token });
    assert.deepEqual([taken.status, taken.json.approved_by], [201, []]);
    const none = await gantry.api('POST', `${base}/unapprove`, { token: fixture.maintainer.token });
    assert.deepEqual([none.status, none.json], [404, { message: '404 Not found' }]);
  });

  it('approvals: an unknown request is 404, a hidden project 404', async () => {
    assert.equal((await gantry.api('GET', `/projects/${repo}/merge_requests/999/approvals`)).status, 404);
    assert.equal((await gantry.api('GET', `/projects/${repo}/merge_requests/1/approvals`, { token: fixture.stranger.token })).status, 404);
  });
});
