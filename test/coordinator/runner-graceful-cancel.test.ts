/**
 * Graceful cancel and quick cancel over real HTTP: a job taken by a runner that announced
 * `cancel_gracefully` becomes `canceling` on cancel; its runner is told `Job-Status:
 * canceling` on PATCH and PUT, may still send its after_script's trace, and its final state
 * ends it `canceled`; a forced cancel ends it at once; a silent canceling job is swept. A
 * keep-alive held with `X-Gantry-Job-Watch` answers as soon as the cancel commits.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import CRC32 from 'crc-32';
import { startRunnerJobsFixture, type RunnerJobsFixture } from '../helpers/runner-jobs.ts';

let fixture: RunnerJobsFixture;

before(async () => {
  fixture = await startRunnerJobsFixture({ ci: { runnerJobs: { stale: { cancelingStuckMs: 60_000, intervalMs: 100 } } } });
});
after(async () => {
  await fixture.close();
});

const crc = (bytes: Uint8Array): string => `crc32:${(CRC32.buf(bytes) >>> 0).toString(16).padStart(8, '0')}`;

function patchTrace(jobId: number, token: string, offset: number, body: Buffer): Promise<Response> {
  return fetch(`${fixture.apiUrl}/jobs/${jobId}/trace?debug_trace=false`, {
    method: 'PATCH',
    headers: { 'content-type': 'text/plain', 'job-token': token, 'content-range': `${offset}-${offset + body.length - 1}` },
    body,
  });
}

function putJob(jobId: number, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${fixture.apiUrl}/jobs/${jobId}`, { method: 'PUT', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

function cancel(projectId: number, jobId: number, query = ''): Promise<Response> {
  return fetch(`${fixture.apiUrl}/projects/${projectId}/jobs/${jobId}/cancel${query}`, { method: 'POST', headers: { 'private-token': fixture.gantry.rootToken } });
}

async function runningJob(name: string, cancelGracefully: boolean) {
  const project = await fixture.project(name);
  const seeded = await fixture.pipeline(project, [{ name: 'build', stage: 'build' }, { name: 'test', stage: 'test' }]);
  const { job, token } = await fixture.claim(project, { cancelGracefully });
  return { jobId: job.id, token, projectId: project.id, pipelineId: seeded.pipeline.id };
}

const pipelineStatus = async (id: number) => (await fixture.gantry.coordinator.context.stores.pipelines.findById(id))?.status;

describe('graceful cancel', () => {
  it('a graceful runner is told canceling, sends its after_script trace, and its final state ends the job canceled', async () => {
    const { jobId, token, projectId, pipelineId } = await runningJob('graceful', true);
    const before = Buffer.from('script output\n');
    assert.equal((await patchTrace(jobId, token, 0, before)).status, 202);
    const canceled = await cancel(projectId, jobId);
    assert.equal(canceled.status, 201);
    assert.equal(((await canceled.json()) as { status: string }).status, 'canceling');
    assert.equal(await pipelineStatus(pipelineId), 'running', '{canceling, created} composes to running');

    const afterScript = Buffer.from('Running after_script\n');
    const patch = await patchTrace(jobId, token, before.length, afterScript);
    assert.equal(patch.status, 202, 'a canceling job still takes its trace');
    assert.equal(patch.headers.get('job-status'), 'canceling');
    const keepAlive = await putJob(jobId, { token, state: 'running' });
    assert.deepEqual([keepAlive.status, keepAlive.headers.get('job-status')], [200, 'canceling']);

    const whole = Buffer.concat([before, afterScript]);
    const final = await putJob(jobId, { token, state: 'failed', failure_reason: 'job_canceled', output: { checksum: crc(whole), bytesize: whole.length } });
    assert.deepEqual([final.status, final.headers.get('job-status')], [200, 'canceled']);
    const job = await fixture.job(jobId);
    assert.deepEqual([job.status, job.failure_reason], ['canceled', null]);
    assert.ok(job.finished_at !== null);
    assert.equal(await pipelineStatus(pipelineId), 'canceled');
    assert.equal((await patchTrace(jobId, token, whole.length, Buffer.from('late'))).status, 403);
  });

  it('a runner that does not announce cancel_gracefully is stopped as before (403, Job-Status: canceled)', async () => {
    const { jobId, token, projectId } = await runningJob('abrupt', false);
    const canceled = await cancel(projectId, jobId);
    assert.equal(((await canceled.json()) as { status: string }).status, 'canceled');
    const patch = await patchTrace(jobId, token, 0, Buffer.from('x'));
    assert.deepEqual([patch.status, patch.headers.get('job-status')], [403, 'canceled']);
  });

  it('force=true ends a canceling job at once; its runner is then refused', async () => {
    const { jobId, token, projectId, pipelineId } = await runningJob('forced', true);
    assert.equal(((await (await cancel(projectId, jobId)).json()) as { status: string }).status, 'canceling');
    const again = await cancel(projectId, jobId);
    assert.equal(((await again.json()) as { status: string }).status, 'canceling', 'a second cancel changes nothing');
    const forced = await cancel(projectId, jobId, '?force=true');
    assert.equal(forced.status, 201);
    assert.equal(((await forced.json()) as { status: string }).status, 'canceled');
    assert.equal(await pipelineStatus(pipelineId), 'canceled');
    const put = await putJob(jobId, { token, state: 'failed', failure_reason: 'job_canceled' });
    assert.deepEqual([put.status, put.headers.get('job-status')], [403, 'canceled']);
  });

  it('a canceling job whose runner went silent ends canceled by the sweep', async () => {
    const { jobId, projectId } = await runningJob('silent', true);
    await cancel(projectId, jobId);
    await fixture.gantry.coordinator.context.stores.jobs.update(jobId, { updated_at: new Date(Date.now() - 120_000).toISOString() });
    const deadline = Date.now() + 10_000;
    while ((await fixture.job(jobId)).status !== 'canceled') {
      assert.ok(Date.now() < deadline, 'the sweep did not end the silent canceling job within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
});

describe('held keep-alives (X-Gantry-Job-Watch)', () => {
  it('answer at once when the job is canceled: 403 Job-Status canceled, or 200 canceling for a graceful runner', async () => {
    for (const graceful of [false, true]) {
      const { jobId, token, projectId } = await runningJob(`watched-${String(graceful)}`, graceful);
      const { stores } = fixture.gantry.coordinator.context;
      // A minute ago: old enough to see the touch, too recent for the stuck sweep.
      const marker = new Date(Date.now() - 60_000).toISOString();
      await stores.jobs.update(jobId, { updated_at: marker });
      const held = putJob(jobId, { token, state: 'running' }, { 'x-gantry-job-watch': '60' });
      // The keep-alive touches the job before it waits: once touched, it is being held.
      const deadline = Date.now() + 10_000;
      while ((await fixture.job(jobId)).updated_at === marker) {
        assert.ok(Date.now() < deadline, 'the keep-alive never reached the job');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal((await cancel(projectId, jobId)).status, 201);
      // Held for 60 s unless the cancel wakes it: a bound of 30 s fails the test if it does not.
      const answer = await Promise.race([held, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 30_000).unref())]);
      assert.notEqual(answer, 'timeout', 'the cancel did not wake the held keep-alive');
      const response = answer as Response;
      assert.deepEqual([response.status, response.headers.get('job-status')], graceful ? [200, 'canceling'] : [403, 'canceled']);
    }
  });

  it('answer after the seconds granted when nothing changes, naming them; GitLab-style keep-alives answer at once', async () => {
    const { jobId, token } = await runningJob('watched-quiet', true);
    const held = await putJob(jobId, { token, state: 'running' }, { 'x-gantry-job-watch': '1' });
    assert.deepEqual([held.status, held.headers.get('job-status'), held.headers.get('x-gantry-job-watch')], [200, 'running', '1']);
    const plain = await putJob(jobId, { token, state: 'running' });
    assert.deepEqual([plain.status, plain.headers.get('x-gantry-job-watch')], [200, null]);
  });
});
