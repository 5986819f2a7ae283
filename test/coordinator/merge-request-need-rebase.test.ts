import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitUntil } from '../helpers/bounded.ts';
import { startMergeFixture, type MergeFixture } from './merge-request-merge-fixtures.ts';
import { hookReceiver, type HookReceiver } from './hooks-receiver.ts';

type Json = Record<string, unknown>;

/**
 * A request whose source is behind its target in a project that merges only fast-forwardable
 * sources (`ff`, `rebase_merge`): GitLab's `should_be_rebased?`. The API, the lists and the
 * webhooks say `need_rebase` (merge_status stays `can_be_merged`: the merge itself is clean), the
 * merge answers 406 before it looks at `sha`.
 */
describe('merge requests that need a rebase', () => {
  let fixture: MergeFixture;
  let project: { id: number; path: string; gitDir: string };
  let receiver: HookReceiver;

  const open = async (sourceBranch: string): Promise<number> => {
    const opened = await fixture.gantry.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: sourceBranch, target_branch: 'main', title: `Merge ${sourceBranch}` } });
    assert.equal(opened.status, 201, opened.text);
    return Number(opened.json.iid);
  };
  const read = async (iid: number): Promise<Json> => {
    const answer = await fixture.gantry.api('GET', `/projects/${project.id}/merge_requests/${iid}`);
    assert.equal(answer.status, 200, answer.text);
    return answer.json;
  };
  const checked = async (iid: number): Promise<Json> => {
    await waitUntil(async () => (await read(iid)).merge_status === 'can_be_merged', `the merge status check of !${iid}`);
    return read(iid);
  };
  const statuses = (json: Json) => [json.merge_status, json.detailed_merge_status, json.has_conflicts];
  const mergeMethod = async (method: string) => {
    const answer = await fixture.gantry.api('PUT', `/projects/${project.id}`, { body: { merge_method: method } });
    assert.equal(answer.status, 200, answer.text);
  };

  before(async () => {
    fixture = await startMergeFixture('rebase');
    project = await fixture.project('linear');
    await mergeMethod('ff');
    const settings = await fixture.gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } });
    assert.equal(settings.status, 200, settings.text);
    receiver = await hookReceiver();
    const hook = await fixture.gantry.api('POST', `/projects/${project.id}/hooks`, { body: { url: receiver.base, push_events: false, merge_requests_events: true } });
    assert.equal(hook.status, 201, hook.text);
  });
  after(async () => {
    await receiver.close();
    await fixture.close();
  });

  it('is need_rebase in the API, the lists and the webhooks while the target has commits the source lacks', async () => {
    await fixture.commit(project.id, 'behind', { 'b.txt': 'b\n' }, { startBranch: 'main' });
    await fixture.commit(project.id, 'main', { 'm.txt': 'm\n' });
    const iid = await open('behind');
    assert.deepEqual(statuses(await checked(iid)), ['can_be_merged', 'need_rebase', false], 'a clean merge, but not fast-forwardable');
    const listed = await fixture.gantry.api('GET', `/projects/${project.id}/merge_requests?state=opened`);
    assert.equal(listed.list.find((entry) => entry.iid === iid)?.detailed_merge_status, 'need_rebase');

    const edited = await fixture.gantry.api('PUT', `/projects/${project.id}/merge_requests/${iid}`, { body: { title: 'Behind main' } });
    assert.equal(edited.status, 200, edited.text);
    assert.equal(edited.json.detailed_merge_status, 'need_rebase');
    await waitUntil(() => receiver.requests.some((request) => (request.body.object_attributes as Json).title === 'Behind main'), 'the update event');
    const event = receiver.requests.find((request) => (request.body.object_attributes as Json).title === 'Behind main')!;
    assert.equal((event.body.object_attributes as Json).detailed_merge_status, 'need_rebase', 'the webhook says what the API says');

    await mergeMethod('rebase_merge');
    assert.equal((await read(iid)).detailed_merge_status, 'need_rebase', 'semi-linear history needs a rebased source too');
    await mergeMethod('merge');
    assert.equal((await read(iid)).detailed_merge_status, 'mergeable', 'a merge commit needs no rebase');
    await mergeMethod('ff');

    const draft = await fixture.gantry.api('PUT', `/projects/${project.id}/merge_requests/${iid}`, { body: { title: 'Draft: behind main' } });
    assert.equal(draft.json.detailed_merge_status, 'draft_status', 'GitLab checks the draft before the rebase');
    await fixture.gantry.api('PUT', `/projects/${project.id}/merge_requests/${iid}`, { body: { title: 'Behind main' } });
  });

  it('answers the merge 406 "Branch cannot be merged" before comparing the sha (409), as GitLab', async () => {
    const [request] = (await fixture.gantry.api('GET', `/projects/${project.id}/merge_requests?source_branch=behind`)).list;
    const iid = Number(request!.iid);
    for (const body of [{}, { sha: '0'.repeat(40) }, { merge_when_pipeline_succeeds: true }]) {
      const refused = await fixture.merge(project.id, iid, body);
      assert.equal(refused.status, 406, `${JSON.stringify(body)}: ${refused.text}`);
      assert.deepEqual(refused.json, { message: 'Branch cannot be merged' });
    }
    assert.equal((await read(iid)).state, 'opened');
  });

  it('is mergeable once the source contains the target again, and merges', async () => {
    const [request] = (await fixture.gantry.api('GET', `/projects/${project.id}/merge_requests?source_branch=behind`)).list;
    const iid = Number(request!.iid);
    const main = await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/main']);
    // What a rebase gives the branch: main's tip below the source's change.
    await fixture.commit(project.id, 'caught-up', { 'c.txt': 'c\n' }, { startBranch: 'main' });
    const caughtUp = await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/caught-up']);
    const second = await open('caught-up');
    assert.deepEqual(statuses(await checked(second)), ['can_be_merged', 'mergeable', false]);
    const merged = await fixture.merge(project.id, second);
    assert.equal(merged.status, 200, merged.text);
    assert.equal(await fixture.git(project.gitDir, ['rev-parse', `${caughtUp}^`]), main);
    assert.deepEqual(statuses(await checked(iid)), ['can_be_merged', 'need_rebase', false], 'the first request is further behind now');
  });

  it('PUT .../rebase replays the source on the target (authors kept), after which the request is mergeable and merges', async () => {
    const [request] = (await fixture.gantry.api('GET', `/projects/${project.id}/merge_requests?source_branch=behind`)).list;
    const iid = Number(request!.iid);
    const before = String(request!.sha);
    const rebase = await fixture.gantry.api('PUT', `/projects/${project.id}/merge_requests/${iid}/rebase`, { token: fixture.developer.token });
    assert.equal(rebase.status, 202, rebase.text);
    assert.deepEqual(rebase.json, { rebase_in_progress: false });
    const main = await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/main']);
    const tip = await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/behind']);
    assert.notEqual(tip, before);
    assert.equal(await fixture.git(project.gitDir, ['rev-parse', `${tip}^`]), main, 'one commit on top of main');
    const original = await fixture.git(project.gitDir, ['log', '-1', '--format=%B|%an|%ae|%aI', before]);
    assert.equal(await fixture.git(project.gitDir, ['log', '-1', '--format=%B|%an|%ae|%aI', tip]), original, 'message and author kept');
    assert.equal(await fixture.git(project.gitDir, ['log', '-1', '--format=%cn', tip]), `User ${fixture.developer.username}`, 'committed by the rebaser');
    const shown = await checked(iid);
    assert.deepEqual([shown.sha, ...statuses(shown), shown.merge_error], [tip, 'can_be_merged', 'mergeable', false, null], 'the refresh took the new head');
    const merged = await fixture.merge(project.id, iid, { sha: tip });
    assert.equal(merged.status, 200, merged.text);
    assert.equal(await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/main']), tip, 'fast-forwarded');
  });

  it('a rebase that conflicts leaves the branch and says so in merge_error; 403 for who may not push, 404 for an unknown request', async () => {
    await fixture.commit(project.id, 'clash', { 'clash.txt': 'mine\n' }, { startBranch: 'main' });
    await fixture.commit(project.id, 'main', { 'clash.txt': 'theirs\n' });
    const iid = await open('clash');
    const tip = await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/clash']);
    const rebase = await fixture.gantry.api('PUT', `/projects/${project.id}/merge_requests/${iid}/rebase`, { body: { skip_ci: true } });
    assert.equal(rebase.status, 202, rebase.text);
    assert.equal(await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/clash']), tip, 'the branch did not move');
    assert.equal((await read(iid)).merge_error, 'Rebase failed: Rebase locally, resolve all conflicts, then push the branch.');

    const protect = await fixture.gantry.api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'clash', push_access_level: 40 } });
    assert.equal(protect.status, 201, protect.text);
    const forbidden = await fixture.gantry.api('PUT', `/projects/${project.id}/merge_requests/${iid}/rebase`, { token: fixture.developer.token });
    assert.equal(forbidden.status, 403, forbidden.text);
    assert.deepEqual(forbidden.json, { message: '403 Forbidden - Cannot push to source branch' });
    assert.equal((await fixture.gantry.api('PUT', `/projects/${project.id}/merge_requests/999/rebase`)).status, 404);
    const deleted = await fixture.gantry.api('DELETE', `/projects/${project.id}/protected_branches/clash`);
    assert.equal(deleted.status, 204, deleted.text);
    assert.equal((await fixture.gantry.api('DELETE', `/projects/${project.id}/repository/branches/clash`)).status, 204);
    const gone = await fixture.gantry.api('PUT', `/projects/${project.id}/merge_requests/${iid}/rebase`);
    assert.deepEqual([gone.status, gone.json], [403, { message: '403 Forbidden - Source branch does not exist' }]);
  });
});
