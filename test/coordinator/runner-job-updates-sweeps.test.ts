/**
 * Stuck and timed-out jobs (the coordinator's periodic sweep, through pipeline processing),
 * and the per-job trace size limit, with small configured values.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JobRecord } from '../../src/storage/types-ci-jobs.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { startRunnerJobsFixture, type RunnerJobsFixture } from '../helpers/runner-jobs.ts';

const MINUTE = 60_000;

async function waitForStatus(fixture: RunnerJobsFixture, jobId: number, status: string): Promise<JobRecord> {
  let job = await fixture.job(jobId);
  await waitUntil(async () => (job = await fixture.job(jobId)).status === status, `job ${jobId} to become ${status}`, { timeoutMs: 10_000, intervalMs: 50, explain: () => `still ${job.status}` });
  return job;
}

describe('stuck and timeout sweeps', () => {
  let fixture: RunnerJobsFixture;
  before(async () => {
    fixture = await startRunnerJobsFixture({ ci: { runnerJobs: { stale: { runningStuckMs: 2 * MINUTE, pendingStuckMs: 2 * MINUTE, timeoutGraceMs: 0, intervalMs: 100 } } } });
  });
  after(async () => {
    await fixture.close();
  });
  const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();

  it('fails a running job past its timeout (capped by the runner) with job_execution_timeout; one within it keeps running', async () => {
    const capped = await fixture.project('timeout-capped');
    const cappedPipeline = await fixture.pipeline(capped, [{ name: 'build', stage: 'build' }, { name: 'test', stage: 'test' }]);
    const { job } = await fixture.claim(capped, { maximumTimeout: 600 });
    const uncapped = await fixture.project('timeout-uncapped');
    await fixture.pipeline(uncapped, [{ name: 'build', stage: 'build' }]);
    const { job: within } = await fixture.claim(uncapped);
    const { stores } = fixture.gantry.coordinator.context;
    // Both started 11 minutes ago and still report: the runner allows 10, the project 60.
    await stores.jobs.update(job.id, { started_at: ago(11 * MINUTE), updated_at: new Date().toISOString() });
    await stores.jobs.update(within.id, { started_at: ago(11 * MINUTE), updated_at: new Date().toISOString() });
    const failed = await waitForStatus(fixture, job.id, 'failed');
    assert.equal(failed.status, 'failed');
    assert.equal(failed.failure_reason, 'job_execution_timeout');
    assert.equal((await stores.pipelines.findById(cappedPipeline.pipeline.id))?.status, 'failed');
    assert.equal((await fixture.job(within.id)).status, 'running');
  });

  it("fails a job without timeout: once past the project's build_timeout (GitLab's default), not before", async () => {
    const project = await fixture.project('timeout-default');
    const buildTimeout = Number((await fixture.gantry.api('GET', `/projects/${project.id}`)).json.build_timeout);
    assert.equal(buildTimeout, 3600);
    await fixture.pipeline(project, [{ name: 'over', stage: 'build' }, { name: 'under', stage: 'build' }]);
    const { job: over } = await fixture.claim(project);
    const { job: under } = await fixture.claim(project);
    const { stores } = fixture.gantry.coordinator.context;
    const now = new Date().toISOString();
    await stores.jobs.update(over.id, { started_at: new Date(Date.now() - buildTimeout * 1000 - MINUTE).toISOString(), updated_at: now });
    await stores.jobs.update(under.id, { started_at: new Date(Date.now() - buildTimeout * 1000 + MINUTE).toISOString(), updated_at: now });
    assert.equal((await waitForStatus(fixture, over.id, 'failed')).failure_reason, 'job_execution_timeout');
    assert.equal((await fixture.job(under.id)).status, 'running');
  });

  it('fails a running job that stopped reporting with stuck_or_timeout_failure', async () => {
    const project = await fixture.project('stuck-running');
    await fixture.pipeline(project, [{ name: 'build', stage: 'build' }]);
    const { job } = await fixture.claim(project);
    const fresh = await fixture.project('fresh-running');
    await fixture.pipeline(fresh, [{ name: 'build', stage: 'build' }]);
    const { job: reporting } = await fixture.claim(fresh);
    await fixture.gantry.coordinator.context.stores.jobs.update(job.id, { updated_at: ago(3 * MINUTE) });
    const failed = await waitForStatus(fixture, job.id, 'failed');
    assert.equal(failed.failure_reason, 'stuck_or_timeout_failure');
    assert.equal((await fixture.job(reporting.id)).status, 'running');
  });

  it('fails a pending job no runner took with stuck_or_timeout_failure', async () => {
    const project = await fixture.project('stuck-pending');
    const seeded = await fixture.pipeline(project, [{ name: 'build', stage: 'build' }]);
    const other = await fixture.project('fresh-pending');
    const waiting = await fixture.pipeline(other, [{ name: 'build', stage: 'build' }]);
    await fixture.gantry.coordinator.context.stores.jobs.update(seeded.jobs.build!.id, { updated_at: ago(3 * MINUTE) });
    const failed = await waitForStatus(fixture, seeded.jobs.build!.id, 'failed');
    assert.equal(failed.failure_reason, 'stuck_or_timeout_failure');
    assert.equal((await fixture.job(waiting.jobs.build!.id)).status, 'pending');
  });
});

describe('lost hand-outs', () => {
  let fixture: RunnerJobsFixture;
  before(async () => {
    fixture = await startRunnerJobsFixture({ ci: { runnerJobs: { stale: { handOutIntervalMs: 100 } } } });
  });
  after(async () => {
    await fixture.close();
  });
  const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();

  it('fails a job its runner never reported for two minutes with scheduler_failure and queues it again; a patch or an update acknowledges a hand-out at once', async () => {
    const project = await fixture.project('lost-hand-out');
    const seeded = await fixture.pipeline(project, [{ name: 'lost', stage: 'build' }, { name: 'patched', stage: 'build' }, { name: 'updated', stage: 'build' }]);
    const { stores } = fixture.gantry.coordinator.context;
    const lost = await fixture.claim(project);
    const patched = await fixture.claim(project);
    const updated = await fixture.claim(project);
    assert.deepEqual([lost.job.name, patched.job.name, updated.job.name], ['lost', 'patched', 'updated']);

    // Each runner's first word about its job, within a second of the claim, is written at once.
    const patch = await fetch(`${fixture.apiUrl}/jobs/${patched.job.id}/trace`, {
      method: 'PATCH', headers: { 'content-type': 'text/plain', 'job-token': patched.token, 'content-range': '0-4' }, body: 'hello',
    });
    assert.equal(patch.status, 202);
    const keepAlive = await fetch(`${fixture.apiUrl}/jobs/${updated.job.id}`, {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: updated.token, state: 'running' }),
    });
    assert.equal(keepAlive.status, 200);
    for (const { job } of [patched, updated]) {
      const current = await fixture.job(job.id);
      assert.notEqual(current.updated_at, current.started_at, `job ${current.name}: acknowledged`);
      // Claimed three minutes ago, last heard of two and a half minutes ago: acknowledged, so not lost.
      await stores.jobs.update(job.id, { started_at: ago(3 * MINUTE), updated_at: ago(2.5 * MINUTE) });
    }
    // Claimed three minutes ago and never heard of since.
    const claimedAt = ago(3 * MINUTE);
    await stores.jobs.update(lost.job.id, { started_at: claimedAt, updated_at: claimedAt });

    const failed = await waitForStatus(fixture, lost.job.id, 'failed');
    assert.equal(failed.failure_reason, 'scheduler_failure');
    const jobs = await stores.jobs.list({ pipelineId: seeded.pipeline.id, includeRetried: true }, { offset: 0, limit: 100 });
    const again = jobs.items.filter((job) => job.name === 'lost' && job.id !== lost.job.id);
    assert.equal(again.length, 1, 'the lost job is queued again');
    assert.equal(again[0]!.status, 'pending');
    assert.equal((await fixture.job(lost.job.id)).retried, true);
    assert.equal((await fixture.job(patched.job.id)).status, 'running');
    assert.equal((await fixture.job(updated.job.id)).status, 'running');
    assert.equal((await stores.pipelines.findById(seeded.pipeline.id))?.status, 'running');
    // Had its runner got the job after all, its first report would stop it.
    const late = await fetch(`${fixture.apiUrl}/jobs/${lost.job.id}/trace`, {
      method: 'PATCH', headers: { 'content-type': 'text/plain', 'job-token': lost.token, 'content-range': '0-4' }, body: 'hello',
    });
    assert.equal(late.status, 403);
  });
});

describe('trace size limit', () => {
  let fixture: RunnerJobsFixture;
  before(async () => {
    fixture = await startRunnerJobsFixture({ ci: { runnerJobs: { traces: { maxBytes: 100 } } } });
  });
  after(async () => {
    await fixture.close();
  });

  it('a patch past the limit fails the job with trace_size_exceeded and answers 403 with Job-Status: failed', async () => {
    const project = await fixture.project('trace-limit');
    await fixture.pipeline(project, [{ name: 'build', stage: 'build' }]);
    const { job, token } = await fixture.claim(project);
    const patch = (range: string, body: Buffer) =>
      fetch(`${fixture.apiUrl}/jobs/${job.id}/trace`, { method: 'PATCH', headers: { 'content-type': 'text/plain', 'job-token': token, 'content-range': range }, body });
    assert.equal((await patch('0-89', Buffer.alloc(90, 0x61))).status, 202);
    // Past the limit but not at the end of the trace: the runner resends from the stored size first.
    const misplaced = await patch('80-110', Buffer.alloc(31, 0x62));
    assert.deepEqual([misplaced.status, misplaced.headers.get('range')], [416, '0-90']);
    assert.equal((await fixture.job(job.id)).status, 'running', 'a misplaced patch fails nothing');
    const over = await patch('90-110', Buffer.alloc(21, 0x62));
    assert.equal(over.status, 403);
    assert.equal(over.headers.get('job-status'), 'failed');
    const failed = await fixture.job(job.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.failure_reason, 'trace_size_exceeded');
  });
});
