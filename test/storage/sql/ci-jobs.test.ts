import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JobDefinition } from '../../../src/ci/model.ts';
import { handleEvent, type PipelineEvent } from '../../../src/pipeline/index.ts';
import { StaleJobError, type JobRecord } from '../../../src/storage/types-ci-jobs.ts';
import type { PipelineRecord } from '../../../src/storage/types-ci.ts';
import type { ProjectRecord, UserRecord } from '../../../src/storage/types.ts';
import { buildJob, createGroup, createPipeline, createProject, createUser, NOW, openCiTestDatabase, SHA, type CiTestDatabase } from './ci-fixtures.ts';

const LATER = '2026-11-22T09:00:00.000Z';

function definition(name: string): JobDefinition {
  return {
    name, baseName: name, trigger: null, stage: 'test', stageIndex: 1, when: 'on_success', startIn: null, allowFailure: false, needs: null, dependencies: null,
    retry: { max: 1, when: ['script_failure'] }, timeout: 600, interruptible: false, resourceGroup: null, tags: ['docker'], image: { name: 'alpine', entrypoint: null },
    services: [], beforeScript: [], script: ['echo "héllo"', 'exit 1'], afterScript: [], variables: [{ key: 'A', value: 'b' }], cache: [], artifacts: null,
    environment: null, coverage: null, parallel: null, inclusion: { included: true, decidedBy: 'default', matchedRule: null },
  };
}

describe('CI jobs storage', () => {
  let database: CiTestDatabase;
  let project: ProjectRecord;
  let alice: UserRecord;

  before(async () => {
    database = await openCiTestDatabase();
    alice = await createUser(database.stores, 'alice');
    project = await createProject(database.stores, await createGroup(database.stores, 'jobs'), 'app');
  });
  after(() => database.close());

  /** Loads the pipeline's jobs, runs the state rules, persists their changes; answers the rules' result. */
  async function apply(pipeline: PipelineRecord, event: PipelineEvent, now = LATER, userId?: number) {
    return database.stores.ciTransactions.run(async (ci) => {
      const locked = await ci.pipelines.lockForProcessing(pipeline.id);
      assert.ok(locked);
      const result = handleEvent({ status: locked.status, jobs: await ci.jobs.loadPipelineJobs(pipeline.id) }, event, { now: Date.parse(now) });
      const applied = await ci.jobs.applyChanges(pipeline.id, result.changes, { now, userId });
      await ci.pipelines.update(pipeline.id, { status: result.pipelineStatus, updated_at: now });
      return { result, applied };
    });
  }

  it('inserts jobs in order with their definitions and reads them back in the state rules shape', async () => {
    const { stores } = database;
    const pipeline = await createPipeline(stores, project);
    const [build, manual, delayed] = await stores.jobs.insertMany([
      buildJob(pipeline, 'build', { stage: 'build', stage_idx: 0, definition: definition('build'), tag_list: ['docker', 'linux', 'docker'], retry: { max: 1, when: ['script_failure'] } }),
      buildJob(pipeline, 'deploy', { when: 'manual', allow_failure: true, needs: [{ name: 'build', artifacts: true }] }),
      buildJob(pipeline, 'later', { when: 'delayed', start_in_seconds: 30 }),
    ]);
    assert.deepEqual([build.name, manual.name, delayed.name], ['build', 'deploy', 'later']);
    assert.ok(build.id < manual.id && manual.id < delayed.id);
    assert.deepEqual(build.definition, definition('build'));
    assert.deepEqual(build.tag_list, ['docker', 'linux']);
    assert.equal(build.updated_at, NOW);
    assert.equal(manual.allow_failure, true);
    assert.equal((await stores.jobs.findById(build.id))?.definition?.script[0], 'echo "héllo"');

    const jobs = await stores.jobs.loadPipelineJobs(pipeline.id);
    assert.deepEqual(jobs, [
      { id: build.id, name: 'build', stage: 'build', stageIdx: 0, status: 'created', when: 'on_success', allowFailure: false, needs: null, retry: { max: 1, when: ['script_failure'] }, retried: false, scheduledAt: null, failureReason: null },
      { id: manual.id, name: 'deploy', stage: 'test', stageIdx: 1, status: 'created', when: 'manual', allowFailure: true, needs: [{ name: 'build', artifacts: true }], retry: null, retried: false, scheduledAt: null, failureReason: null },
      { id: delayed.id, name: 'later', stage: 'test', stageIdx: 1, status: 'created', when: 'delayed', allowFailure: false, needs: null, retry: null, retried: false, startInSeconds: 30, scheduledAt: null, failureReason: null },
    ]);
  });

  it('persists processing: statuses with their timestamps, scheduled times, automatic retries', async () => {
    const { stores } = database;
    const pipeline = await createPipeline(stores, project);
    const [build, test, later] = await stores.jobs.insertMany([
      buildJob(pipeline, 'build', { stage: 'build', stage_idx: 0, retry: { max: 1, when: ['script_failure'] }, definition: definition('build'), tag_list: ['docker'], user_id: alice.id }),
      buildJob(pipeline, 'test'),
      buildJob(pipeline, 'later', { when: 'delayed', start_in_seconds: 60 }),
    ]);

    const processed = await apply(pipeline, { type: 'process' });
    const afterProcess = await stores.jobs.findById(build.id);
    assert.equal(afterProcess?.status, 'pending');
    assert.equal(afterProcess?.queued_at, LATER);
    assert.equal((await stores.jobs.findById(test.id))?.status, 'created');
    assert.deepEqual(await stores.jobs.loadPipelineJobs(pipeline.id), processed.result.jobs, 'what is stored equals what the rules answered');

    await apply(pipeline, { type: 'job-status', jobId: build.id, status: 'running' });
    assert.equal((await stores.jobs.findById(build.id))?.started_at, LATER);

    const failedAt = '2026-11-22T09:05:00.000Z';
    const failed = await apply(pipeline, { type: 'job-status', jobId: build.id, status: 'failed', failureReason: 'script_failure' }, failedAt, 99);
    assert.equal(failed.applied.createdIds.size, 1, 'script_failure is retried automatically');
    const [[provisional, cloneId]] = [...failed.applied.createdIds];
    assert.ok(failed.result.jobs.some((job) => job.id === provisional));
    const original = await stores.jobs.findById(build.id);
    const clone = await stores.jobs.findById(cloneId);
    assert.equal(original?.status, 'failed');
    assert.equal(original?.retried, true);
    assert.equal(original?.finished_at, failedAt);
    assert.equal(original?.failure_reason, 'script_failure');
    assert.deepEqual(
      { name: clone?.name, status: clone?.status, retried: clone?.retried, definition: clone?.definition, tags: clone?.tag_list, user: clone?.user_id },
      { name: 'build', status: 'pending', retried: false, definition: definition('build'), tags: ['docker'], user: 99 },
    );
    assert.deepEqual(
      [clone?.created_at, clone?.queued_at, clone?.started_at, clone?.finished_at, clone?.failure_reason, clone?.runner_id],
      [failedAt, failedAt, null, null, null, null],
    );
    assert.equal((await stores.jobs.loadPipelineJobs(pipeline.id)).length, 4);

    await apply(pipeline, { type: 'job-status', jobId: cloneId, status: 'running' });
    await apply(pipeline, { type: 'job-status', jobId: cloneId, status: 'success' }, '2026-11-22T09:10:00.000Z');
    assert.equal((await stores.jobs.findById(test.id))?.status, 'pending');
    const scheduled = await stores.jobs.findById(later.id);
    assert.equal(scheduled?.status, 'scheduled');
    assert.equal(scheduled?.scheduled_at, '2026-11-22T09:11:00.000Z');
    const state = await stores.jobs.loadPipelineJobs(pipeline.id);
    assert.equal(state.find((job) => job.id === later.id)?.scheduledAt, Date.parse('2026-11-22T09:11:00.000Z'));
  });

  it('refuses a batch whose job moved meanwhile, and keeps none of it', async () => {
    const { stores } = database;
    const pipeline = await createPipeline(stores, project);
    const [only] = await stores.jobs.insertMany([buildJob(pipeline, 'only', { status: 'failed' })]);
    const state = { status: 'failed' as const, jobs: await stores.jobs.loadPipelineJobs(pipeline.id) };
    const retry = handleEvent(state, { type: 'retry-job', jobId: only.id }, { now: Date.parse(LATER) });
    assert.ok(retry.changes.some((change) => change.kind === 'create'));
    // Someone else changed the job after the state was read.
    assert.equal(await stores.jobs.update(only.id, { status: 'success' }), true);
    await assert.rejects(stores.ciTransactions.run((ci) => ci.jobs.applyChanges(pipeline.id, retry.changes, { now: LATER })), (error: unknown) => error instanceof StaleJobError && error.jobId === only.id);
    assert.equal((await stores.jobs.loadPipelineJobs(pipeline.id)).length, 1, 'the clone was rolled back');
  });

  it('updates one job directly, optionally only at a known lock version, and finds it by token digest', async () => {
    const { stores } = database;
    const pipeline = await createPipeline(stores, project);
    const [job] = await stores.jobs.insertMany([buildJob(pipeline, 'direct')]);
    assert.equal(await stores.jobs.update(job.id, { trace_size: 10, trace_checksum: 'crc32:00000001' }, job.lock_version), true);
    assert.equal(await stores.jobs.update(job.id, { trace_size: 20 }, job.lock_version), false, 'stale lock version');
    assert.equal(await stores.jobs.update(job.id, {}), true);
    assert.equal(await stores.jobs.update(999_999, {}), false);
    await stores.jobs.setTokenDigest(job.id, 'f'.repeat(64));
    const found = await stores.jobs.findByTokenDigest('f'.repeat(64));
    assert.equal(found?.id, job.id);
    assert.equal(found?.trace_size, 10);
    assert.equal('token_digest' in (found as JobRecord), false, 'the digest never leaves the store');
  });

  it('lists jobs by project, pipeline, runner and scope, retried ones only when asked', async () => {
    const { stores } = database;
    const listed = await createProject(stores, await createGroup(stores, 'listing'), 'app');
    const pipeline = await createPipeline(stores, listed);
    const [a, b, c, d] = await stores.jobs.insertMany([
      buildJob(pipeline, 'a', { status: 'success' }),
      buildJob(pipeline, 'b', { status: 'failed', retried: true }),
      buildJob(pipeline, 'b', { status: 'running' }),
      buildJob(pipeline, 'bridge', { type: 'bridge', status: 'pending' }),
    ]);
    const ids = async (filter: object) => (await stores.jobs.list({ projectId: listed.id, ...filter }, { offset: 0, limit: 10 })).items.map((job) => job.id);
    assert.deepEqual(await ids({}), [d.id, c.id, a.id]);
    assert.deepEqual(await ids({ includeRetried: true, sort: 'asc' }), [a.id, b.id, c.id, d.id]);
    assert.deepEqual(await ids({ statuses: ['success', 'running'] }), [c.id, a.id]);
    assert.deepEqual(await ids({ statuses: [] }), []);
    assert.deepEqual(await ids({ types: ['bridge'] }), [d.id]);
    assert.deepEqual(await ids({ pipelineId: pipeline.id, types: ['build'] }), [c.id, a.id]);
    const page = await stores.jobs.list({ projectId: listed.id }, { offset: 1, limit: 1 });
    assert.deepEqual([page.total, page.items.map((job) => job.id)], [3, [c.id]]);
  });

  it('answers commit statuses for a sha, the open generic status, and the latest successful job of a ref', async () => {
    const { stores } = database;
    const statusProject = await createProject(stores, await createGroup(stores, 'statuses'), 'app');
    const first = await createPipeline(stores, statusProject, { status: 'success' });
    const second = await createPipeline(stores, statusProject, { status: 'success', ref: 'feature' });
    const elsewhere = await createPipeline(stores, statusProject, { sha: 'c'.repeat(40), status: 'success' });
    const [oldBuild, newBuild, external, lint] = await stores.jobs.insertMany([
      buildJob(first, 'build', { status: 'success', retried: true }),
      buildJob(first, 'build', { status: 'success' }),
      buildJob(first, 'ci/external', { type: 'generic', status: 'running', stage: 'external', stage_idx: 1_000_000, target_url: 'https://ci.example.com/1' }),
      buildJob(second, 'lint', { stage: 'lint', status: 'failed' }),
    ]);
    const [latestBuild] = await stores.jobs.insertMany([buildJob(elsewhere, 'build', { status: 'success' })]);
    const ids = async (filter: object) => (await stores.jobs.statusesForSha(statusProject.id, SHA, filter)).map((job) => job.id);
    assert.deepEqual(await ids({}), [newBuild.id, external.id, lint.id]);
    assert.deepEqual(await ids({ all: true }), [oldBuild.id, newBuild.id, external.id, lint.id]);
    assert.deepEqual(await ids({ ref: 'feature' }), [lint.id]);
    assert.deepEqual(await ids({ stage: 'external' }), [external.id]);
    assert.deepEqual(await ids({ name: 'build', all: true }), [oldBuild.id, newBuild.id]);

    assert.equal((await stores.jobs.findOpenGenericStatus(first.id, 'ci/external', 'main'))?.id, external.id);
    assert.equal(await stores.jobs.findOpenGenericStatus(first.id, 'ci/external', 'feature'), undefined);
    await stores.jobs.update(external.id, { status: 'success' });
    assert.equal(await stores.jobs.findOpenGenericStatus(first.id, 'ci/external', 'main'), undefined, 'a finished status is never reopened');

    assert.equal((await stores.jobs.latestSuccessfulByRefAndName(statusProject.id, 'main', 'build'))?.id, latestBuild.id, 'from the newest successful pipeline');
    assert.equal(await stores.jobs.latestSuccessfulByRefAndName(statusProject.id, 'feature', 'lint'), undefined, 'the job failed');
    assert.equal(await stores.jobs.latestSuccessfulByRefAndName(statusProject.id, 'main', 'nope'), undefined);
  });

  it('lists jobs left in a status since a time, and drops jobs with their pipeline', async () => {
    const { stores } = database;
    const pipeline = await createPipeline(stores, project);
    const [stale, fresh] = await stores.jobs.insertMany([
      buildJob(pipeline, 'stale', { status: 'running', updated_at: '2020-01-01T00:00:00.000Z' }),
      buildJob(pipeline, 'fresh', { status: 'running', updated_at: '2030-01-01T00:00:00.000Z' }),
    ]);
    const found = await stores.jobs.listStale('running', '2026-01-01T00:00:00.000Z', 10);
    assert.ok(found.some((job) => job.id === stale.id));
    assert.ok(!found.some((job) => job.id === fresh.id));
    await stores.pipelines.delete(pipeline.id);
    assert.deepEqual(await stores.jobs.findByIds([stale.id, fresh.id]), []);
  });

  it('lists running builds claimed before a time and not updated since their claim', async () => {
    const { stores } = database;
    const pipeline = await createPipeline(stores, project);
    const claimed = '2020-01-01T00:00:00.000Z';
    const [lost, reported, recent, pending] = await stores.jobs.insertMany([
      buildJob(pipeline, 'lost', { status: 'running', started_at: claimed, updated_at: claimed }),
      buildJob(pipeline, 'reported', { status: 'running', started_at: claimed, updated_at: '2020-01-01T00:00:03.000Z' }),
      buildJob(pipeline, 'recent', { status: 'running', started_at: '2030-01-01T00:00:00.000Z', updated_at: '2030-01-01T00:00:00.000Z' }),
      buildJob(pipeline, 'pending', { status: 'pending', started_at: claimed, updated_at: claimed }),
    ]);
    const found = (await stores.jobs.listUnacknowledged('2026-01-01T00:00:00.000Z', 10)).map((job) => job.id);
    assert.ok(found.includes(lost.id));
    for (const other of [reported, recent, pending]) assert.ok(!found.includes(other.id), `job ${other.name}`);
    await stores.pipelines.delete(pipeline.id);
  });
});
