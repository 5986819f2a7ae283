import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PipelineProcessing, SCHEDULED_TIME_TASK, scheduledTimeHandler } from '../../src/coordinator/services/ci/pipelines/processing.ts';
import type { PipelineRecord } from '../../src/storage/types-ci.ts';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { buildJob, createGroup, createPipeline, createProject, openCiTestDatabase, type CiTestDatabase } from '../storage/sql/ci-fixtures.ts';

const T0 = Date.parse('2026-11-24T10:00:00.000Z');

describe('pipeline processing on stored pipelines', () => {
  let database: CiTestDatabase;
  let project: ProjectRecord;
  let now = T0;
  const committed: number[] = [];
  let processing: PipelineProcessing;

  before(async () => {
    database = await openCiTestDatabase();
    project = await createProject(database.stores, await createGroup(database.stores, 'processing'), 'app');
    processing = new PipelineProcessing({
      transactions: database.stores.ciTransactions,
      clock: () => now,
      afterCommit: (processed) => committed.push(processed.pipeline.id),
    });
  });
  after(() => database.close());

  /** build (stage 0) → test, later (delayed 60 s) (stage 1) → deploy (manual, stage 2). */
  async function threeStagePipeline(): Promise<PipelineRecord> {
    const { stores } = database;
    const pipeline = await createPipeline(stores, project);
    await stores.stages.insertMany(pipeline.id, [
      { name: 'build', position: 0, status: 'created' },
      { name: 'test', position: 1, status: 'created' },
      { name: 'deploy', position: 2, status: 'created' },
    ]);
    await stores.jobs.insertMany([
      buildJob(pipeline, 'build', { stage: 'build', stage_idx: 0 }),
      buildJob(pipeline, 'test', { stage: 'test', stage_idx: 1 }),
      buildJob(pipeline, 'later', { stage: 'test', stage_idx: 1, when: 'delayed', start_in_seconds: 60 }),
      buildJob(pipeline, 'deploy', { stage: 'deploy', stage_idx: 2, when: 'manual', allow_failure: false }),
    ]);
    return pipeline;
  }

  async function statusesOf(pipelineId: number): Promise<Record<string, string>> {
    const jobs = await database.stores.jobs.loadPipelineJobs(pipelineId);
    return Object.fromEntries(jobs.map((job) => [`${job.name}${job.retried ? ' (retried)' : ''}`, job.status]));
  }

  it('enqueues the first stage, and moves stages, pipeline status and timestamps with each event in one transaction', async () => {
    now = T0;
    const pipeline = await threeStagePipeline();
    const created = await processing.apply(pipeline.id, { type: 'process' });
    assert.equal(created.pipeline.status, 'pending');
    assert.deepEqual(await statusesOf(pipeline.id), { build: 'pending', test: 'created', later: 'created', deploy: 'created' });
    const [build] = await database.stores.jobs.loadPipelineJobs(pipeline.id);
    assert.deepEqual(created.enqueuedJobIds, [build.id]);
    assert.deepEqual(
      (await database.stores.stages.listForPipeline(pipeline.id)).map((stage) => [stage.name, stage.status]),
      [['build', 'pending'], ['test', 'created'], ['deploy', 'created']],
    );
    assert.ok(committed.includes(pipeline.id), 'listeners hear of the committed event');

    now = T0 + 1000;
    const running = await processing.apply(pipeline.id, { type: 'job-status', jobId: build.id, status: 'running' });
    assert.equal(running.pipeline.status, 'running');
    assert.equal(running.pipeline.started_at, new Date(T0 + 1000).toISOString());

    now = T0 + 11_000;
    const succeeded = await processing.apply(pipeline.id, { type: 'job-status', jobId: build.id, status: 'success' });
    assert.deepEqual(await statusesOf(pipeline.id), { build: 'success', test: 'pending', later: 'scheduled', deploy: 'created' });
    assert.equal(succeeded.enqueuedJobIds.length, 1);
    const stages = await database.stores.stages.listForPipeline(pipeline.id);
    // {pending, scheduled}: rule 9 of §5.1 makes the stage running.
    assert.deepEqual(stages.map((stage) => stage.status), ['success', 'running', 'created']);
    assert.equal(succeeded.pipeline.finished_at, null);
  });

  it('tells listeners added with onCommitted of each committed event until they are removed, a failing one not stopping the others', async () => {
    const pipeline = await threeStagePipeline();
    const heard: string[] = [];
    const removeFailing = processing.onCommitted(() => {
      throw new Error('listener failure');
    });
    const remove = processing.onCommitted((processed) => heard.push(`${processed.pipeline.id}:${processed.pipeline.status}`));
    await processing.apply(pipeline.id, { type: 'process' });
    assert.deepEqual(heard, [`${pipeline.id}:pending`]);
    remove();
    removeFailing();
    const [build] = await database.stores.jobs.loadPipelineJobs(pipeline.id);
    await processing.apply(pipeline.id, { type: 'job-status', jobId: build.id, status: 'running' });
    assert.deepEqual(heard, [`${pipeline.id}:pending`], 'a removed listener hears nothing more');
  });

  it('gives a delayed job a durable timer task that enqueues it when due, and only then', async () => {
    now = T0;
    const pipeline = await threeStagePipeline();
    await processing.apply(pipeline.id, { type: 'process' });
    const jobs = await database.stores.jobs.loadPipelineJobs(pipeline.id);
    const build = jobs.find((job) => job.name === 'build');
    const later = jobs.find((job) => job.name === 'later');
    assert.ok(build && later);
    await processing.apply(pipeline.id, { type: 'job-status', jobId: build.id, status: 'running' });
    await processing.apply(pipeline.id, { type: 'job-status', jobId: build.id, status: 'success' });

    const owner = 'processing-test';
    const early = await database.stores.tasks.claim({ owner, now: new Date(T0 + 30_000).toISOString(), lockedUntil: new Date(T0 + 90_000).toISOString(), kinds: [SCHEDULED_TIME_TASK] });
    assert.equal(early, undefined, 'not due before start_in has passed');
    const task = await database.stores.tasks.claim({ owner, now: new Date(T0 + 61_000).toISOString(), lockedUntil: new Date(T0 + 120_000).toISOString(), kinds: [SCHEDULED_TIME_TASK] });
    assert.ok(task, 'the timer is due once start_in has passed');
    assert.deepEqual(task.payload, { pipelineId: pipeline.id, jobId: later.id });

    now = T0 + 61_000;
    await scheduledTimeHandler(processing)(task, { signal: new AbortController().signal });
    assert.equal((await statusesOf(pipeline.id)).later, 'pending');
  });

  it('answers the real id of the job a retry creates, and marks the old one retried', async () => {
    now = T0;
    const pipeline = await threeStagePipeline();
    await processing.apply(pipeline.id, { type: 'process' });
    const build = (await database.stores.jobs.loadPipelineJobs(pipeline.id))[0];
    await processing.apply(pipeline.id, { type: 'job-status', jobId: build.id, status: 'running' });
    const failed = await processing.apply(pipeline.id, { type: 'job-status', jobId: build.id, status: 'failed', failureReason: 'script_failure' });
    assert.equal(failed.pipeline.status, 'failed');
    assert.ok(failed.pipeline.finished_at);

    const retried = await processing.apply(pipeline.id, { type: 'retry-job', jobId: build.id }, { userId: null });
    assert.ok(retried.resultJobId !== undefined && retried.resultJobId !== build.id);
    const fresh = await database.stores.jobs.findById(retried.resultJobId);
    assert.equal(fresh?.name, 'build');
    assert.equal(fresh?.status, 'pending');
    assert.deepEqual(retried.createdJobIds, [retried.resultJobId]);
    assert.deepEqual(retried.enqueuedJobIds, [retried.resultJobId]);
    assert.equal((await database.stores.jobs.findById(build.id))?.retried, true);
    // PIPE: enqueue from a finished status leads to running, not pending (§5.4).
    assert.equal(retried.pipeline.status, 'running');
    assert.equal(retried.pipeline.finished_at, null, 'a pipeline retried back to life is no longer finished');
  });

  it('applies concurrent events to one pipeline without losing either', async () => {
    now = T0;
    const { stores } = database;
    const pipeline = await createPipeline(stores, project);
    await stores.stages.insertMany(pipeline.id, [{ name: 'test', position: 0, status: 'created' }]);
    await stores.jobs.insertMany(Array.from({ length: 6 }, (_, index) => buildJob(pipeline, `job-${index}`, { stage: 'test', stage_idx: 0 })));
    await processing.apply(pipeline.id, { type: 'process' });
    const jobs = await stores.jobs.loadPipelineJobs(pipeline.id);
    await Promise.all(jobs.map((job) => processing.apply(pipeline.id, { type: 'job-status', jobId: job.id, status: 'running' })));
    await Promise.all(jobs.map((job) => processing.apply(pipeline.id, { type: 'job-status', jobId: job.id, status: 'success' })));
    assert.deepEqual(Object.values(await statusesOf(pipeline.id)), Array(6).fill('success'));
    assert.equal((await stores.pipelines.findById(pipeline.id))?.status, 'success');
  });

  it('refuses an unknown pipeline and an unknown job with their codes, and changes nothing', async () => {
    await assert.rejects(processing.apply(987_654, { type: 'process' }), { code: 'GANTRY_E_PIPELINE_NOT_FOUND' });
    const pipeline = await threeStagePipeline();
    await assert.rejects(processing.apply(pipeline.id, { type: 'cancel-job', jobId: 987_654 }), { code: 'GANTRY_E_JOB_NOT_FOUND' });
    assert.equal((await database.stores.pipelines.findById(pipeline.id))?.status, 'created');
  });
});
