import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitUntil } from '../helpers/bounded.ts';
import { startMergeFixture, type MergeFixture } from './merge-request-merge-fixtures.ts';
import { hookReceiver, type HookReceiver } from './hooks-receiver.ts';

type Json = Record<string, unknown>;

/**
 * GitLab 16's CI check of `detailed_merge_status` (CheckCiStatusService, run last): with
 * `only_allow_merge_if_pipeline_succeeds`, a request otherwise mergeable is `ci_still_running`
 * while its head pipeline is active and `ci_must_pass` while it is missing or did not succeed;
 * the merge answers those 405, as the rest of GitLab's `mergeable_state?`.
 */
describe('detailed_merge_status: ci_must_pass and ci_still_running', () => {
  let fixture: MergeFixture;
  let project: { id: number; path: string; gitDir: string };
  let receiver: HookReceiver;

  /** The commit-status API drives an external pipeline for `sha` on `ref` through the real state rules. */
  const status = async (sha: string, ref: string, state: string): Promise<void> => {
    const response = await fixture.gantry.api('POST', `/projects/${project.id}/statuses/${sha}`, { body: { state, ref, name: 'ci' } });
    assert.equal(response.status, 201, response.text);
  };
  const open = async (sourceBranch: string, title = `Merge ${sourceBranch}`): Promise<number> => {
    const opened = await fixture.gantry.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: sourceBranch, target_branch: 'main', title } });
    assert.equal(opened.status, 201, opened.text);
    return Number(opened.json.iid);
  };
  const read = async (iid: number): Promise<Json> => {
    const answer = await fixture.gantry.api('GET', `/projects/${project.id}/merge_requests/${iid}`);
    assert.equal(answer.status, 200, answer.text);
    return answer.json;
  };
  const detailed = async (iid: number): Promise<unknown> => {
    await waitUntil(async () => (await read(iid)).merge_status === 'can_be_merged', `the merge status check of !${iid}`);
    return (await read(iid)).detailed_merge_status;
  };
  const requirePipeline = async (required: boolean) => {
    const answer = await fixture.gantry.api('PUT', `/projects/${project.id}`, { body: { only_allow_merge_if_pipeline_succeeds: required } });
    assert.equal(answer.status, 200, answer.text);
  };

  before(async () => {
    fixture = await startMergeFixture('ci-status');
    project = await fixture.project('app');
    await requirePipeline(true);
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

  it('follows the head pipeline: missing and failed are ci_must_pass, pending and running ci_still_running, success mergeable', async () => {
    const head = await fixture.commit(project.id, 'checked', { 'c.txt': 'c\n' }, { startBranch: 'main' });
    const iid = await open('checked');
    assert.equal(await detailed(iid), 'ci_must_pass', 'no pipeline at all');
    await status(head, 'checked', 'pending');
    assert.equal(await detailed(iid), 'ci_still_running');
    await status(head, 'checked', 'running');
    assert.equal(await detailed(iid), 'ci_still_running');
    const listed = await fixture.gantry.api('GET', `/projects/${project.id}/merge_requests?state=opened`);
    assert.equal(listed.list.find((entry) => entry.iid === iid)?.detailed_merge_status, 'ci_still_running', 'the lists say it too');
    const running = await fixture.merge(project.id, iid);
    assert.deepEqual([running.status, running.json], [405, { message: '405 Method Not Allowed' }], running.text);

    const edited = await fixture.gantry.api('PUT', `/projects/${project.id}/merge_requests/${iid}`, { body: { title: 'Checked by CI' } });
    assert.equal(edited.json.detailed_merge_status, 'ci_still_running', edited.text);
    await waitUntil(() => receiver.requests.some((request) => (request.body.object_attributes as Json).title === 'Checked by CI'), 'the update event');
    const event = receiver.requests.find((request) => (request.body.object_attributes as Json).title === 'Checked by CI')!;
    assert.equal((event.body.object_attributes as Json).detailed_merge_status, 'ci_still_running', 'the webhook says what the API says');

    await status(head, 'checked', 'failed');
    assert.equal(await detailed(iid), 'ci_must_pass');
    const failed = await fixture.merge(project.id, iid);
    assert.equal(failed.status, 405, failed.text);

    await requirePipeline(false);
    assert.equal(await detailed(iid), 'mergeable', 'no pipeline is required');
    await requirePipeline(true);

    const fixed = await fixture.commit(project.id, 'checked', { 'c.txt': 'fixed\n' });
    assert.equal(await detailed(iid), 'ci_must_pass', 'the new head has no pipeline yet');
    await status(fixed, 'checked', 'success');
    assert.equal(await detailed(iid), 'mergeable');
    const merged = await fixture.merge(project.id, iid);
    assert.equal(merged.status, 200, merged.text);
  });

  it('runs last: a draft or a conflict is shown first', async () => {
    await fixture.commit(project.id, 'drafted', { 'd.txt': 'd\n' }, { startBranch: 'main' });
    const draft = await open('drafted', 'Draft: not yet');
    await waitUntil(async () => (await read(draft)).merge_status === 'can_be_merged', 'the check of the draft');
    assert.equal((await read(draft)).detailed_merge_status, 'draft_status');

    await fixture.commit(project.id, 'clash', { 'README.md': 'theirs\n' }, { startBranch: 'main' });
    await fixture.commit(project.id, 'main', { 'README.md': 'ours\n' });
    const clash = await open('clash');
    await waitUntil(async () => (await read(clash)).merge_status === 'cannot_be_merged', 'the check of the conflict');
    assert.equal((await read(clash)).detailed_merge_status, 'broken_status');
  });
});
