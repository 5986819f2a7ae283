import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ciServicesOf } from '../../src/coordinator/app.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { startMergeFixture, type MergeFixture } from './merge-request-merge-fixtures.ts';

describe('merging with pipelines: only_allow_merge_if_pipeline_succeeds and merge when pipeline succeeds', () => {
  let fixture: MergeFixture;
  let project: { id: number; path: string; gitDir: string };

  /** The commit-status API drives an external pipeline for `sha` on `ref` through the real state rules. */
  const status = async (sha: string, ref: string, state: string): Promise<void> => {
    const response = await fixture.gantry.api('POST', `/projects/${project.id}/statuses/${sha}`, { body: { state, ref, name: 'ci' } });
    assert.equal(response.status, 201, response.text);
  };
  const stored = (iid: number) => fixture.gantry.coordinator.context.stores.mergeRequests.findByIid(project.id, iid);
  const systemNotes = async (id: number): Promise<string[]> =>
    (await fixture.gantry.coordinator.context.db.selectFrom('notes').select('body').where('noteable_type', '=', 'MergeRequest').where('noteable_id', '=', id).orderBy('id').execute()).map(
      (note) => note.body,
    );

  before(async () => {
    fixture = await startMergeFixture('pipelines');
    project = await fixture.project('app');
    const settings = await fixture.gantry.api('PUT', `/projects/${project.id}`, { body: { only_allow_merge_if_pipeline_succeeds: true } });
    assert.equal(settings.status, 200, settings.text);
  });
  after(() => fixture.close());

  it('refuses (405) while the required pipeline failed or is missing, merges once it succeeded', async () => {
    const head = await fixture.commit(project.id, 'checked', { 'c.txt': 'c\n' }, { startBranch: 'main' });
    const request = await fixture.openRequest(project.id, 'checked');
    assert.equal((await fixture.merge(project.id, request.iid)).status, 405, 'no pipeline at all');
    await status(head, 'checked', 'failed');
    const refused = await fixture.merge(project.id, request.iid);
    assert.equal(refused.status, 405);
    assert.deepEqual(refused.json, { message: '405 Method Not Allowed' });

    const fixed = await fixture.commit(project.id, 'checked', { 'c.txt': 'fixed\n' });
    await status(fixed, 'checked', 'success');
    const merged = await fixture.merge(project.id, request.iid);
    assert.equal(merged.status, 200, merged.text);
  });

  it('waits for a running pipeline and merges from the task queue when it succeeds', async () => {
    const head = await fixture.commit(project.id, 'waiting', { 'w.txt': 'w\n' }, { startBranch: 'main' });
    await status(head, 'waiting', 'running');
    const request = await fixture.openRequest(project.id, 'waiting');
    const waiting = await fixture.merge(project.id, request.iid, { merge_when_pipeline_succeeds: true, should_remove_source_branch: true }, fixture.maintainer.token);
    assert.equal(waiting.status, 200, waiting.text);
    assert.equal(waiting.json.state, 'opened');
    assert.equal(waiting.json.merge_when_pipeline_succeeds, true);
    assert.equal((waiting.json.merge_user as { username: string }).username, fixture.maintainer.username);
    assert.deepEqual(await systemNotes(request.id), [`enabled an automatic merge when the pipeline for ${head} succeeds`]);
    const target = await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/main']);

    await status(head, 'waiting', 'success');
    await waitUntil(async () => (await stored(request.iid))?.state === 'merged', 'the automatic merge');
    const merged = await stored(request.iid);
    assert.equal(merged?.merged_by_id, fixture.maintainer.id);
    assert.equal(merged?.merge_when_pipeline_succeeds, false);
    const tip = await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/main']);
    assert.equal(merged?.merge_commit_sha, tip);
    assert.equal(await fixture.git(project.gitDir, ['rev-list', '--parents', '-n1', tip]), `${tip} ${target} ${head}`);
    // The branch goes after the request is marked merged, as GitLab removes it after the merge.
    await waitUntil(async () => (await fixture.gantry.coordinator.context.repositories.open(project.id).branch('waiting')) === null, 'the stored should_remove_source_branch to remove the branch');
  });

  it('a coordinator that dies right after the finish commits still merges: the task is recorded in that transaction', async () => {
    const head = await fixture.commit(project.id, 'durable', { 'd.txt': 'd\n' }, { startBranch: 'main' });
    await status(head, 'durable', 'running');
    const request = await fixture.openRequest(project.id, 'durable');
    assert.equal((await fixture.merge(project.id, request.iid, { merge_when_pipeline_succeeds: true })).status, 200);
    const { stores } = fixture.gantry.coordinator.context;
    const pipeline = (await stores.pipelines.latestFor(project.id, head))!;
    const [job] = (await stores.jobs.list({ pipelineId: pipeline.id }, { offset: 0, limit: 1 })).items;
    // The job's success committed without anything that runs after the commit (`notify`), as when the process dies there.
    const { pipelineProcessing } = ciServicesOf(fixture.gantry.coordinator);
    await stores.ciTransactions.run((ciStores) => pipelineProcessing.applyIn(ciStores, pipeline.id, { type: 'job-status', jobId: job!.id, status: 'success' }));
    assert.equal((await stores.pipelines.findById(pipeline.id))?.status, 'success');
    await waitUntil(async () => (await stored(request.iid))?.state === 'merged', 'the automatic merge from the recorded task');
  });

  it('drops the wait when the pipeline fails, and cancel answers 201 then 405', async () => {
    const head = await fixture.commit(project.id, 'failing', { 'f.txt': 'f\n' }, { startBranch: 'main' });
    await status(head, 'failing', 'running');
    const request = await fixture.openRequest(project.id, 'failing');
    assert.equal((await fixture.merge(project.id, request.iid, { merge_when_pipeline_succeeds: true })).status, 200);
    await status(head, 'failing', 'failed');
    await waitUntil(async () => (await stored(request.iid))?.merge_when_pipeline_succeeds === false, 'the wait to be dropped');
    const dropped = await stored(request.iid);
    assert.equal(dropped?.state, 'opened');
    assert.equal(dropped?.merge_user_id, null);
    assert.equal(dropped?.merge_params, null);
    // The note is a write of its own after the drop: wait for it rather than read it at once.
    const abortNote = 'aborted the automatic merge because the pipeline did not succeed';
    await waitUntil(async () => (await systemNotes(request.id)).includes(abortNote), 'the abort\'s system note');
    assert.deepEqual((await systemNotes(request.id)).slice(-1), [abortNote]);

    const again = await fixture.commit(project.id, 'failing', { 'f.txt': 'again\n' });
    await status(again, 'failing', 'running');
    assert.equal((await fixture.merge(project.id, request.iid, { merge_when_pipeline_succeeds: true })).status, 200);
    const cancel = () => fixture.gantry.api('POST', `/projects/${project.id}/merge_requests/${request.iid}/cancel_merge_when_pipeline_succeeds`);
    const canceled = await cancel();
    assert.deepEqual([canceled.status, canceled.json], [201, { status: 'success' }], canceled.text);
    assert.equal((await stored(request.iid))?.merge_when_pipeline_succeeds, false);
    // Nothing waiting: GitLab answers its auto-merge service's refusal, with 201.
    const refused = await cancel();
    assert.deepEqual([refused.status, refused.json], [201, { status: 'error', message: "Can't cancel the automatic merge", http_status: 406 }], refused.text);
    assert.equal((await stored(request.iid))?.merge_when_pipeline_succeeds, false);
    const outsider = await fixture.gantry.createUser('pipelines-outsider');
    const hidden = await fixture.gantry.api('POST', `/projects/${project.id}/merge_requests/${request.iid}/cancel_merge_when_pipeline_succeeds`, { token: outsider.token });
    assert.equal(hidden.status, 404, 'a private project\'s requests are not found by outsiders');
  });

  it('the automatic merge compares the pipeline it read once the lock is held: one that failed since merges nothing', async () => {
    // Without the pipeline rule, only the comparison stands between a failed pipeline and the merge.
    assert.equal((await fixture.gantry.api('PUT', `/projects/${project.id}`, { body: { only_allow_merge_if_pipeline_succeeds: false } })).status, 200);
    const head = await fixture.commit(project.id, 'raced', { 'r.txt': 'r\n' }, { startBranch: 'main' });
    await status(head, 'raced', 'running');
    const request = await fixture.openRequest(project.id, 'raced');
    assert.equal((await fixture.merge(project.id, request.iid, { merge_when_pipeline_succeeds: true })).status, 200);
    const { stores } = fixture.gantry.coordinator.context;
    const running = (await stores.pipelines.latestFor(project.id, head))!;
    // What a task read an instant before the pipeline turned failed (a retried job failing): success.
    const asRead = { ...running, status: 'success' as const };
    // The request as the task read it, before the failure's own task drops the wait.
    const waiting = (await stored(request.iid))!;
    await status(head, 'raced', 'failed');
    const target = await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/main']);
    await ciServicesOf(fixture.gantry.coordinator).autoMerge.mergeWaiting((await stores.projects.findById(project.id))!, waiting, asRead);
    assert.equal(await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/main']), target, 'nothing merged');
    const after = await stored(request.iid);
    assert.notEqual(after?.state, 'merged');
    assert.notEqual(after?.state, 'locked', 'the lock was given back');
  });
});
