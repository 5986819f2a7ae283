import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MergeRequestSaved } from '../../src/coordinator/services/planning/merge-requests/observers.ts';
import { buildPlanningServices } from '../../src/coordinator/wiring-planning.ts';
import { makeGroup, makeProjectWithRepository } from './groups-fixtures.ts';
import { startMergeRequestFixture, type MergeRequestFixture } from './merge-requests-fixtures.ts';

describe('merge requests from forks, on public and archived projects, and their observers', () => {
  let fx: MergeRequestFixture;
  let forkId: number;

  before(async () => {
    fx = await startMergeRequestFixture();
    const fork = await fx.gantry.api('POST', `/projects/${fx.project.id}/fork`, { token: fx.developer.token });
    assert.equal(fork.status, 201, fork.text);
    forkId = Number(fork.json.id);
    await fx.branch('from-fork', forkId);
  });
  after(() => fx.close());

  it("opens a fork's request into its upstream: the request lives in the upstream, its source is the fork", async () => {
    const body = { source_branch: 'from-fork', target_branch: 'main', title: 'From my fork', target_project_id: fx.project.id, allow_collaboration: true };
    const created = await fx.gantry.api('POST', `/projects/${forkId}/merge_requests`, { body, token: fx.developer.token });
    assert.equal(created.status, 201, created.text);
    const mr = created.json;
    assert.deepEqual([mr.iid, mr.project_id, mr.target_project_id, mr.source_project_id, mr.allow_collaboration, mr.allow_maintainer_to_push], [1, fx.project.id, fx.project.id, forkId, true, true]);
    assert.equal(mr.web_url, 'http://gantry.test/mr/app/-/merge_requests/1');
    const shown = await fx.gantry.api('GET', `/projects/${fx.project.id}/merge_requests/1`, { token: fx.reporter.token });
    assert.deepEqual([shown.status, shown.json.source_project_id], [200, forkId]);
    // The same branch name of the fork into the upstream's is no request into itself.
    const sameName = await fx.gantry.api('POST', `/projects/${forkId}/merge_requests`, { body: { source_branch: 'main', target_branch: 'main', title: 'x', target_project_id: fx.project.id }, token: fx.developer.token });
    assert.equal(sameName.status, 201, sameName.text);
  });

  it('refuses a target outside the fork network (422) and one the caller cannot see (403)', async () => {
    const own = await fx.gantry.api('POST', '/projects', { body: { name: 'mine', initialize_with_readme: true }, token: fx.developer.token });
    assert.equal(own.status, 201, own.text);
    const outside = await fx.gantry.api('POST', `/projects/${forkId}/merge_requests`, { body: { source_branch: 'from-fork', target_branch: 'main', title: 'x', target_project_id: Number(own.json.id) }, token: fx.developer.token });
    assert.deepEqual([outside.status, outside.json], [422, { message: ['Source project is not a fork of the target project'] }]);
    const hidden = await makeProjectWithRepository(fx.gantry, (await makeGroup(fx.gantry, 'hidden', { visibility: 'private' })).id, 'secret', { withReadme: true });
    const unseen = await fx.gantry.api('POST', `/projects/${forkId}/merge_requests`, { body: { source_branch: 'from-fork', target_branch: 'main', title: 'x', target_project_id: hidden.id }, token: fx.developer.token });
    assert.deepEqual([unseen.status, unseen.json], [403, { message: '403 Forbidden' }]);
    // Upstream Reporters may not open requests from the upstream (no push there).
    const reporter = await fx.gantry.api('POST', `/projects/${fx.project.id}/merge_requests`, { body: { source_branch: 'main', target_branch: 'x', title: 'x' }, token: fx.reporter.token });
    assert.equal(reporter.status, 403);
  });

  it('lets anonymous callers read the requests of a public project, not write them', async () => {
    const open = await makeGroup(fx.gantry, 'open', { visibility: 'public' });
    const project = await makeProjectWithRepository(fx.gantry, open.id, 'lib', { visibility: 'public', withReadme: true });
    await fx.branch('public-work', project.id);
    assert.equal((await fx.gantry.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: 'public-work', target_branch: 'main', title: 'Public' } })).status, 201);
    const listed = await fx.gantry.api('GET', `/projects/${project.id}/merge_requests`, { token: null });
    assert.deepEqual([listed.status, listed.list.map((mr) => mr.title)], [200, ['Public']]);
    const shown = await fx.gantry.api('GET', `/projects/${project.id}/merge_requests/1`, { token: null });
    assert.deepEqual([shown.status, shown.json.subscribed, (shown.json.user as Record<string, unknown>).can_merge], [200, false, false]);
    assert.equal((await fx.gantry.api('GET', `/groups/${open.id}/merge_requests`, { token: null })).list.length, 1);
    assert.equal((await fx.gantry.api('PUT', `/projects/${project.id}/merge_requests/1`, { body: { title: 'x' }, token: null })).status, 401);
    // Merge requests disabled: the project reads, its requests do not.
    await fx.gantry.coordinator.context.stores.projects.update(project.id, { merge_requests_enabled: false });
    assert.deepEqual((await fx.gantry.api('GET', `/projects/${project.id}/merge_requests/1`)).json, { message: '404 Merge Request Not Found' });
    assert.deepEqual((await fx.gantry.api('GET', `/projects/${project.id}/merge_requests`)).json, { message: '403 Forbidden' });
    assert.equal((await fx.gantry.api('GET', '/merge_requests?scope=all&search=Public')).list.length, 0);
  });

  it('announces every create and update to the observers, with before and after snapshots', async () => {
    const planning = buildPlanningServices(fx.gantry.coordinator.context);
    const seen: MergeRequestSaved[] = [];
    planning.mergeRequestObservers.push({ mergeRequestSaved: async (change) => void seen.push(change) });
    const root = (await fx.gantry.coordinator.context.stores.users.findByIds([1]))[0]!;
    const tipBefore = await fx.branch('observed');
    const { view } = await planning.mergeRequestEdits.create(String(fx.project.id), root, { sourceBranch: 'observed', targetBranch: 'main', title: 'Seen', labels: ['bug'] });
    await planning.mergeRequestEdits.update(String(fx.project.id), root, view.record.iid, { title: 'Seen again', assigneeIds: [fx.developer.id] });
    assert.deepEqual(seen.map((change) => [change.before?.record.title ?? null, change.after.record.title, change.project.id, change.actor.id]), [[null, 'Seen', fx.project.id, 1], ['Seen', 'Seen again', fx.project.id, 1]]);
    assert.deepEqual([seen[1]!.before?.assigneeIds, seen[1]!.after.assigneeIds, seen[1]!.after.labels.map((label) => label.title)], [[], [fx.developer.id], ['bug']]);
    const tip = (await fx.gantry.api('GET', `/projects/${fx.project.id}/repository/branches/observed`)).json.commit as Record<string, unknown>;
    assert.deepEqual([seen[0]!.after.record.head_sha, tip.id], [tipBefore, tipBefore]);
  });

  it('refuses opening and editing requests in an archived project (403)', async () => {
    assert.equal((await fx.gantry.api('POST', `/projects/${fx.project.id}/archive`)).status, 201);
    const body = { source_branch: 'observed', target_branch: 'from-nothing', title: 'x' };
    assert.deepEqual((await fx.gantry.api('POST', `/projects/${fx.project.id}/merge_requests`, { body })).json, { message: '403 Forbidden' });
    assert.deepEqual((await fx.gantry.api('PUT', `/projects/${fx.project.id}/merge_requests/1`, { body: { title: 'x' }, token: fx.developer.token })).json, { message: '403 Forbidden' });
    assert.equal((await fx.gantry.api('GET', `/projects/${fx.project.id}/merge_requests/1`)).status, 200);
  });
});
