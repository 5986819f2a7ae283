import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PushEvent } from '../../src/coordinator/services/events.ts';
import { COMMIT_REFERENCES_TASK } from '../../src/coordinator/services/planning/commit-references.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { startMergeFixture, type MergeFixture } from './merge-request-merge-fixtures.ts';

describe('merging merge requests (PUT .../merge)', () => {
  let fixture: MergeFixture;
  let project: { id: number; path: string; gitDir: string };
  const pushes: PushEvent[] = [];

  before(async () => {
    fixture = await startMergeFixture('merging');
    project = await fixture.project('app');
    fixture.gantry.coordinator.context.events.onPush((push) => void pushes.push(push));
  });
  after(() => fixture.close());

  it('writes a merge commit with GitLab\'s message, both parents and both sides\' files, records the push and answers the merged request', async () => {
    const source = await fixture.commit(project.id, 'feature', { 'feature.txt': 'feature\n' }, { startBranch: 'main' });
    const target = await fixture.commit(project.id, 'main', { 'main.txt': 'main\n' });
    const request = await fixture.openRequest(project.id, 'feature', { title: 'Add the feature' });

    const merged = await fixture.merge(project.id, request.iid, {}, fixture.maintainer.token);
    assert.equal(merged.status, 200, merged.text);
    assert.equal(merged.json.state, 'merged');
    assert.equal((merged.json.merged_by as { username: string }).username, fixture.maintainer.username);
    assert.ok(merged.json.merged_at);
    assert.equal(merged.json.squash_commit_sha, null);

    const tip = await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/main']);
    assert.equal(merged.json.merge_commit_sha, tip);
    assert.equal(await fixture.git(project.gitDir, ['rev-list', '--parents', '-n1', tip]), `${tip} ${target} ${source}`);
    assert.equal(
      await fixture.git(project.gitDir, ['log', '-1', '--format=%B', tip]),
      `Merge branch 'feature' into 'main'\n\nAdd the feature\n\nSee merge request ${project.path}!${request.iid}`,
    );
    assert.equal(await fixture.git(project.gitDir, ['log', '-1', '--format=%an <%ae>', tip]), `User ${fixture.maintainer.username} <${fixture.maintainer.username}@example.com>`, 'the merger commits');
    const files = (await fixture.git(project.gitDir, ['ls-tree', '--name-only', tip])).split('\n');
    assert.deepEqual(files.sort(), ['README.md', 'feature.txt', 'main.txt']);
    assert.ok(pushes.some((push) => push.project_id === project.id && push.ref === 'refs/heads/main' && push.before === target && push.after === tip), 'the merge is recorded as a push to main');
    assert.ok(await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/feature']), 'the source branch stays when nobody asked to remove it');

    const byCommit = await fixture.gantry.api('GET', `/projects/${project.id}/repository/commits/${tip}/merge_requests`);
    assert.equal(byCommit.status, 200, byCommit.text);
    assert.deepEqual(byCommit.list.map((entry) => entry.iid), [request.iid]);
    assert.deepEqual([byCommit.headers['x-total'], byCommit.headers['x-page'], byCommit.headers['x-per-page']], ['1', '1', '20'], 'paginated, as in GitLab');
    const pastEnd = await fixture.gantry.api('GET', `/projects/${project.id}/repository/commits/${tip}/merge_requests?page=2&per_page=1`);
    assert.deepEqual([pastEnd.status, pastEnd.list, pastEnd.headers['x-total']], [200, [], '1']);
    const unknownCommit = await fixture.gantry.api('GET', `/projects/${project.id}/repository/commits/${'f'.repeat(40)}/merge_requests`);
    assert.equal(unknownCommit.status, 404);
  });

  it('squashes into one commit on the merge base with the squash message, then merges it', async () => {
    await fixture.commit(project.id, 'squashed', { 'a.txt': 'a\n' }, { startBranch: 'main' });
    await fixture.commit(project.id, 'squashed', { 'b.txt': 'b\n' });
    const sourceTree = await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/squashed^{tree}']);
    const base = await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/main']);
    const request = await fixture.openRequest(project.id, 'squashed');

    const merged = await fixture.merge(project.id, request.iid, { squash: true, squash_commit_message: 'One commit for a and b' });
    assert.equal(merged.status, 200, merged.text);
    const squash = String(merged.json.squash_commit_sha);
    assert.equal(merged.json.squash, true);
    assert.equal(await fixture.git(project.gitDir, ['rev-list', '--parents', '-n1', squash]), `${squash} ${base}`);
    assert.equal(await fixture.git(project.gitDir, ['rev-parse', `${squash}^{tree}`]), sourceTree);
    assert.equal(await fixture.git(project.gitDir, ['log', '-1', '--format=%B', squash]), 'One commit for a and b');
    assert.equal(await fixture.git(project.gitDir, ['log', '-1', '--format=%an', squash]), `User ${fixture.developer.username}`, 'authored by the request\'s author');
    const tip = await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/main']);
    assert.equal(merged.json.merge_commit_sha, tip);
    assert.equal(await fixture.git(project.gitDir, ['rev-list', '--parents', '-n1', tip]), `${tip} ${base} ${squash}`);
  });

  it('answers 409 for a stale sha, 405 for a closed or draft request, and 406 on conflicts (a stale sha too), leaving the request open', async () => {
    const head = await fixture.commit(project.id, 'guarded', { 'g.txt': 'g\n' }, { startBranch: 'main' });
    const guarded = await fixture.openRequest(project.id, 'guarded');
    const stale = await fixture.merge(project.id, guarded.iid, { sha: 'a'.repeat(40) });
    assert.equal(stale.status, 409);
    assert.deepEqual(stale.json, { message: `SHA does not match HEAD of source branch: ${'a'.repeat(40)}` });
    const good = await fixture.merge(project.id, guarded.iid, { sha: head });
    assert.equal(good.status, 200, good.text);

    await fixture.commit(project.id, 'closed', { 'c.txt': 'c\n' }, { startBranch: 'main' });
    const closed = await fixture.openRequest(project.id, 'closed', { state: 'closed' });
    const closedAnswer = await fixture.merge(project.id, closed.iid);
    assert.equal(closedAnswer.status, 405);
    assert.deepEqual(closedAnswer.json, { message: '405 Method Not Allowed' });

    await fixture.commit(project.id, 'draft', { 'd.txt': 'd\n' }, { startBranch: 'main' });
    const draft = await fixture.openRequest(project.id, 'draft', { title: 'Draft: not yet' });
    assert.equal((await fixture.merge(project.id, draft.iid)).status, 405);

    await fixture.commit(project.id, 'conflict', { 'README.md': 'theirs\n' }, { startBranch: 'main' });
    await fixture.commit(project.id, 'main', { 'README.md': 'ours\n' });
    const conflicting = await fixture.openRequest(project.id, 'conflict');
    const before = await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/main']);
    const conflict = await fixture.merge(project.id, conflicting.iid);
    assert.equal(conflict.status, 406);
    assert.deepEqual(conflict.json, { message: 'Branch cannot be merged' });
    // GitLab's `mergeable?` (conflicts: 406) runs before the sha guard (409).
    const staleConflict = await fixture.merge(project.id, conflicting.iid, { sha: 'a'.repeat(40) });
    assert.deepEqual([staleConflict.status, staleConflict.json], [406, { message: 'Branch cannot be merged' }], staleConflict.text);
    assert.equal(await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/main']), before);
    const after = await fixture.gantry.coordinator.context.stores.mergeRequests.findByIid(project.id, conflicting.iid);
    assert.equal(after?.state, 'opened', 'the merge lock is released');

    const missing = await fixture.merge(project.id, 999);
    assert.equal(missing.status, 404);
    assert.equal((await fixture.merge(project.id, guarded.iid, {}, null)).status, 401);
  });

  it('refuses a Developer (401) when only Maintainers may merge into a protected target, and lets a Maintainer merge', async () => {
    const guarded = await fixture.project('guarded');
    await fixture.commit(guarded.id, 'topic', { 't.txt': 't\n' }, { startBranch: 'main' });
    // Made with a README through the API: `main` has the rule of the instance's default protection (Maintainers).
    const rule = await fixture.gantry.api('GET', `/projects/${guarded.id}/protected_branches/main`);
    assert.deepEqual([rule.status, rule.json.merge_access_levels], [200, [{ access_level: 40, access_level_description: 'Maintainers' }]], rule.text);
    const request = await fixture.openRequest(guarded.id, 'topic');
    const refused = await fixture.merge(guarded.id, request.iid, {}, fixture.developer.token);
    assert.equal(refused.status, 401);
    assert.deepEqual(refused.json, { message: '401 Unauthorized' });
    const accepted = await fixture.merge(guarded.id, request.iid, {}, fixture.maintainer.token);
    assert.equal(accepted.status, 200, accepted.text);
  });

  it('removes the source branch when asked (and when the request was created asking), never a protected one', async () => {
    const source = await fixture.commit(project.id, 'short-lived', { 's.txt': 's\n' }, { startBranch: 'main' });
    const request = await fixture.openRequest(project.id, 'short-lived');
    const merged = await fixture.merge(project.id, request.iid, { should_remove_source_branch: true });
    assert.equal(merged.status, 200, merged.text);
    assert.equal(merged.json.should_remove_source_branch, true);
    assert.equal(await fixture.gantry.coordinator.context.repositories.open(project.id).branch('short-lived'), null);
    assert.ok(pushes.some((push) => push.ref === 'refs/heads/short-lived' && push.before === source && push.after === '0'.repeat(40)), 'the deletion is a push too');

    await fixture.commit(project.id, 'forced', { 'f.txt': 'f\n' }, { startBranch: 'main' });
    const forced = await fixture.openRequest(project.id, 'forced', { force_remove_source_branch: true });
    assert.equal((await fixture.merge(project.id, forced.iid)).status, 200);
    assert.equal(await fixture.gantry.coordinator.context.repositories.open(project.id).branch('forced'), null);

    await fixture.commit(project.id, 'kept', { 'k.txt': 'k\n' }, { startBranch: 'main' });
    await fixture.gantry.api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'kept' } });
    const kept = await fixture.openRequest(project.id, 'kept');
    assert.equal((await fixture.merge(project.id, kept.iid, { should_remove_source_branch: true })).status, 200);
    assert.ok(await fixture.gantry.coordinator.context.repositories.open(project.id).branch('kept'), 'a protected source branch stays');
  });

  it('lists the issues a request closes and closes them on merge with "closed via merge request"', async () => {
    const issues = [];
    for (const title of ['first', 'second', 'third']) {
      const created = await fixture.gantry.api('POST', `/projects/${project.id}/issues`, { body: { title } });
      assert.equal(created.status, 201, created.text);
      issues.push(Number(created.json.iid));
    }
    const [first, second, third] = issues as [number, number, number];
    await fixture.commit(project.id, 'fixes', { 'fix.txt': 'fix\n' }, { startBranch: 'main', message: `Repair things\n\nFixes #${second}` });
    const request = await fixture.openRequest(project.id, 'fixes', { description: `Closes #${first}, relates to #${third}` });

    const listed = await fixture.gantry.api('GET', `/projects/${project.id}/merge_requests/${request.iid}/closes_issues`);
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.list.map((issue) => issue.iid), [first, second]);
    const secondPage = await fixture.gantry.api('GET', `/projects/${project.id}/merge_requests/${request.iid}/closes_issues?per_page=1&page=2`);
    assert.deepEqual([secondPage.list.map((issue) => issue.iid), secondPage.headers['x-total'], secondPage.headers['x-total-pages']], [[second], '2', '2']);

    assert.equal((await fixture.merge(project.id, request.iid)).status, 200);
    const states = await fixture.gantry.api('GET', `/projects/${project.id}/issues?iids[]=${first}&iids[]=${second}&iids[]=${third}`);
    assert.deepEqual(
      Object.fromEntries(states.list.map((issue) => [issue.iid, issue.state])),
      { [first]: 'closed', [second]: 'closed', [third]: 'opened' },
    );
    const notes = await fixture.gantry.api('GET', `/projects/${project.id}/issues/${first}/notes`);
    assert.ok(notes.list.some((note) => note.body === `closed via merge request !${request.iid}` && note.system === true), JSON.stringify(notes.list));
  });
  it('closes an issue its own commit closes as the merge request, not via commit, as GitLab\'s merge does first', async () => {
    const iids: number[] = [];
    for (const title of ['both', 'commit only', 'mentioned']) iids.push(Number((await fixture.gantry.api('POST', `/projects/${project.id}/issues`, { body: { title } })).json.iid));
    const [both, commitOnly, mentioned] = iids as [number, number, number];
    const sha = await fixture.commit(project.id, 'closer', { 'closer.txt': 'c\n' }, { startBranch: 'main', message: `Close things\n\nCloses #${both}, closes #${commitOnly}, see #${mentioned}` });
    const request = await fixture.openRequest(project.id, 'closer', { description: `Closes #${both}` });
    assert.equal((await fixture.merge(project.id, request.iid, {}, fixture.maintainer.token)).status, 200);
    const notesOf = async (iid: number) => (await fixture.gantry.api('GET', `/projects/${project.id}/issues/${iid}/notes?sort=asc`)).list.map((note) => note.body);
    // The merge's push has its commit references read by a task (done tasks are deleted).
    const { db } = fixture.gantry.coordinator.context;
    await waitUntil(async () => (await db.selectFrom('tasks').select('id').where('kind', '=', COMMIT_REFERENCES_TASK).execute()).length === 0, 'the commit references of the merge push');
    assert.deepEqual(await notesOf(mentioned), [`mentioned in commit ${sha}`]);
    for (const iid of [both, commitOnly]) {
      // The mention is the push of the branch (not the default one: nothing closes there).
      assert.deepEqual(await notesOf(iid), [`mentioned in commit ${sha}`, `closed via merge request !${request.iid}`], `#${iid}: one closing note, the merge request's`);
      const issue = (await fixture.gantry.api('GET', `/projects/${project.id}/issues/${iid}`)).json;
      assert.deepEqual([issue.state, (issue.closed_by as { username: string }).username], ['closed', fixture.maintainer.username]);
    }
  });
  it('first_contribution: an author outside the project until one of their requests merged; never a member', async () => {
    const outsider = await fixture.gantry.createUser('first-timer');
    await fixture.commit(project.id, 'first-a', { 'first-a.txt': 'a\n' }, { startBranch: 'main' });
    await fixture.commit(project.id, 'first-b', { 'first-b.txt': 'b\n' }, { startBranch: 'main' });
    const first = await fixture.openRequest(project.id, 'first-a', { author_id: outsider.id });
    const second = await fixture.openRequest(project.id, 'first-b', { author_id: outsider.id });
    const byMember = await fixture.openRequest(project.id, 'first-b', { target_branch: 'first-a' });
    const shown = async (iid: number) => (await fixture.gantry.api('GET', `/projects/${project.id}/merge_requests/${iid}`)).json.first_contribution;
    assert.deepEqual([await shown(first.iid), await shown(second.iid), await shown(byMember.iid)], [true, true, false]);
    assert.equal((await fixture.merge(project.id, first.iid)).status, 200);
    assert.deepEqual([await shown(first.iid), await shown(second.iid)], [false, false], 'they have a merged request now');
  });
});
