/**
 * /-/metrics while CI works, over real HTTP as gitlab-runner 13.12 drives it: the queue's
 * pending and running builds, runners by status, the long polls held open, the task queue's
 * backlog, trace and artifact bytes and the requests by route and status all move as a
 * pipeline is queued, taken and run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PUSH_PIPELINE_TASK } from '../../src/coordinator/services/ci/pipelines/push.ts';
import { runnerRequest, uploadBody, zipBytes } from '../helpers/runner-artifacts.ts';
import { startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

const CI = `
build-a:
  stage: test
  script: [echo a]
build-b:
  stage: test
  script: [echo b]
`;

/** The samples of /-/metrics, by `name{labels}` as printed. */
async function scrape(fixture: RunnerJobsFixture): Promise<Map<string, number>> {
  const response = await fetch(`${fixture.baseUrl}/-/metrics`);
  assert.equal(response.status, 200);
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    const sample = /^([a-zA-Z_:][\w:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (sample) samples.set(sample[1]!, Number(sample[2]));
  }
  return samples;
}

async function value(fixture: RunnerJobsFixture, sample: string): Promise<number | undefined> {
  return (await scrape(fixture)).get(sample);
}

describe('/-/metrics while a pipeline runs', () => {
  let fixture: RunnerJobsFixture;
  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(() => fixture.close());

  it('moves with jobs queued, taken, logged, uploaded and finished', async () => {
    const runner = await fixture.register(await fixture.instanceToken());
    let samples = await scrape(fixture);
    assert.equal(samples.get('gantry_ci_jobs{status="pending"}'), 0);
    assert.equal(samples.get('gantry_ci_jobs{status="running"}'), 0);
    assert.equal(samples.get('gantry_ci_job_queue_oldest_seconds'), 0);
    assert.equal(samples.get('gantry_ci_runners{runner_type="instance_type",status="not_connected"}'), 1);
    assert.equal(samples.get('gantry_ci_job_request_waiters'), 0);
    const traceBytesBefore = samples.get('gantry_ci_trace_bytes_total');
    const artifactBytesBefore = samples.get('gantry_ci_artifact_bytes_total');
    assert.equal(traceBytesBefore, 0);
    assert.equal(artifactBytesBefore, 0);

    // A runner's long poll is held open, and counted, until a pipeline gives it a job.
    const idle = await fixture.requestJob(runner.token);
    assert.equal(idle.status, 204);
    const polling = fixture.requestJob(runner.token, idle.headers.get('x-gitlab-last-update')!);
    let waiters = 0;
    for (let attempt = 0; attempt < 400 && waiters === 0; attempt += 1) {
      waiters = (await value(fixture, 'gantry_ci_job_request_waiters')) ?? 0;
      if (waiters === 0) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.equal(waiters, 1, 'the long poll never showed in gantry_ci_job_request_waiters');

    const project = await fixture.ciProject('metrics', CI);
    await fixture.runPipeline(project.id);
    const taken = await polling;
    assert.equal(taken.status, 201, taken.text);
    const first = { id: taken.json.id as number, token: taken.json.token as string };

    samples = await scrape(fixture);
    assert.equal(samples.get('gantry_ci_jobs{status="pending"}'), 1, 'one build still waits in the queue');
    assert.equal(samples.get('gantry_ci_jobs{status="running"}'), 1);
    assert.ok((samples.get('gantry_ci_job_queue_oldest_seconds') ?? -1) >= 0);
    assert.equal(samples.get('gantry_ci_job_request_waiters'), 0);
    assert.equal(samples.get('gantry_ci_runners{runner_type="instance_type",status="online"}'), 1);
    assert.equal(samples.get('gantry_ci_runners{runner_type="instance_type",status="not_connected"}'), undefined);
    // The commit of .gitlab-ci.yml recorded a push task, and this fixture runs no task worker.
    assert.ok((samples.get(`gantry_tasks{kind="${PUSH_PIPELINE_TASK}",state="ready"}`) ?? 0) >= 1, 'the push task waits in the task queue');
    assert.equal(samples.get(`gantry_tasks{kind="${PUSH_PIPELINE_TASK}",state="dead"}`), 0);
    assert.equal(samples.get('http_requests_total{method="POST",route="/api/v4/jobs/request",status="201"}'), 1);
    assert.equal(samples.get('http_requests_total{method="POST",route="/api/v4/jobs/request",status="204"}'), 1);
    assert.equal(samples.get('http_requests_total{method="POST",route="/api/v4/runners",status="201"}'), 1);

    const log = Buffer.from('Running on a test runner\n$ echo a\na\n');
    const patched = await fetch(`${fixture.baseUrl}/api/v4/jobs/${first.id}/trace`, {
      method: 'PATCH', headers: { 'job-token': first.token, 'content-type': 'text/plain', 'content-range': `0-${log.length - 1}` }, body: log,
    });
    assert.equal(patched.status, 202);
    const stale = await fetch(`${fixture.baseUrl}/api/v4/jobs/${first.id}/trace`, {
      method: 'PATCH', headers: { 'job-token': first.token, 'content-type': 'text/plain', 'content-range': '0-2' }, body: 'abc',
    });
    assert.equal(stale.status, 416, 'an append at the wrong offset is refused');
    const zip = await zipBytes({ 'out/a.txt': 'a'.repeat(1000) });
    const uploaded = await runnerRequest(fixture.baseUrl, 'POST', `/jobs/${first.id}/artifacts?artifact_format=zip&artifact_type=archive`, { token: first.token, body: uploadBody('artifacts.zip', zip) });
    assert.equal(uploaded.status, 201, uploaded.text);
    samples = await scrape(fixture);
    assert.equal(samples.get('gantry_ci_trace_bytes_total'), log.length, 'the refused append adds nothing');
    assert.equal(samples.get('gantry_ci_artifact_bytes_total'), zip.length);

    const finish = (job: { id: number; token: string }) =>
      fetch(`${fixture.baseUrl}/api/v4/jobs/${job.id}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: job.token, state: 'success' }) });
    assert.equal((await finish(first)).status, 200);
    samples = await scrape(fixture);
    assert.equal(samples.get('gantry_ci_jobs{status="running"}'), 0);
    assert.equal(samples.get('gantry_ci_jobs{status="pending"}'), 1);

    const next = await fixture.requestJob(runner.token);
    assert.equal(next.status, 201);
    samples = await scrape(fixture);
    assert.equal(samples.get('gantry_ci_jobs{status="pending"}'), 0);
    assert.equal(samples.get('gantry_ci_jobs{status="running"}'), 1);
    assert.equal(samples.get('gantry_ci_job_queue_oldest_seconds'), 0);
    assert.equal((await finish({ id: next.json.id as number, token: next.json.token as string })).status, 200);
    samples = await scrape(fixture);
    assert.equal(samples.get('gantry_ci_jobs{status="running"}'), 0);
    assert.equal(samples.get('http_requests_total{method="POST",route="/api/v4/jobs/request",status="201"}'), 2);
    assert.equal(samples.get('http_requests_total{method="PUT",route="/api/v4/jobs/:id",status="200"}'), 2);
    assert.equal(samples.get('http_requests_total{method="PATCH",route="/api/v4/jobs/:id/trace",status="416"}'), 1);
  });
});
