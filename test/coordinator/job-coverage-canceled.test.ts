import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/shared/logger.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { RUNNER_INFO, startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * GitLab scans a job's log for its `coverage` regex whenever the job ends success, failed or
 * canceled (`Ci::BuildFinishedWorker`): a job canceled while it ran gets the coverage of its log
 * up to the cancel, a job canceled before it started (no log) none. The task worker runs, as in
 * a coordinator: the pipelines are the pushes' own.
 */
const CI = "  script: make\n  coverage: '/Coverage: \\d+\\.\\d+%/'\n";
const GRACEFUL = { ...RUNNER_INFO, features: { ...RUNNER_INFO.features, cancel_gracefully: true } };

describe('coverage of canceled jobs', () => {
  let fixture: RunnerJobsFixture;
  before(async () => {
    fixture = await startRunnerJobsFixture({ extra: { logger: silentLogger(), ci: { taskPollIntervalMs: 50 } } });
  });
  after(() => fixture.close());

  /** The project's pipeline (its CI commit's push) and the runner that takes its jobs. */
  async function pipelineOf(name: string, ci: string): Promise<{ projectId: number; pipelineId: number; runnerToken: string }> {
    const project = await fixture.ciProject(name, ci);
    const runner = await fixture.register(project.runners_token);
    let pipelineId = 0;
    await waitUntil(async () => {
      const list = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines`);
      pipelineId = Number(list.list[0]?.id ?? 0);
      return pipelineId > 0;
    }, "the push's pipeline");
    return { projectId: project.id, pipelineId, runnerToken: runner.token };
  }

  async function claim(runnerToken: string, info = RUNNER_INFO): Promise<{ id: number; name: string; token: string }> {
    const claimed = await fixture.requestJob(runnerToken, undefined, info);
    assert.equal(claimed.status, 201, claimed.text);
    return { id: Number(claimed.json.id), name: (claimed.json.job_info as { name: string }).name, token: String(claimed.json.token) };
  }

  /** Bytes each job's runner has sent. */
  const sent = new Map<number, number>();

  async function appendTrace(job: { id: number; token: string }, text: string): Promise<{ status: number; jobStatus: string | null }> {
    const start = sent.get(job.id) ?? 0;
    const response = await fetch(`${fixture.baseUrl}/api/v4/jobs/${String(job.id)}/trace`, {
      method: 'PATCH',
      headers: { 'content-type': 'text/plain', 'job-token': job.token, 'content-range': `${String(start)}-${String(start + Buffer.byteLength(text) - 1)}` },
      body: text,
    });
    await response.arrayBuffer();
    if (response.status === 202) sent.set(job.id, start + Buffer.byteLength(text));
    return { status: response.status, jobStatus: response.headers.get('job-status') };
  }

  async function job(projectId: number, jobId: number): Promise<Record<string, unknown>> {
    const answer = await fixture.gantry.api('GET', `/projects/${projectId}/jobs/${String(jobId)}`);
    assert.equal(answer.status, 200, answer.text);
    return answer.json;
  }

  async function pipelineCoverage(projectId: number, pipelineId: number): Promise<unknown> {
    return (await fixture.gantry.api('GET', `/projects/${projectId}/pipelines/${String(pipelineId)}`)).json.coverage;
  }

  it('scans the log of a job canceled while it ran, up to the cancel; a job canceled while pending keeps none', async () => {
    const { projectId, pipelineId, runnerToken } = await pipelineOf('canceled-running', `unit:\n${CI}lint:\n${CI}`);
    const running = await claim(runnerToken);
    assert.equal((await appendTrace(running, '$ make\nCoverage: 40.00%\n')).status, 202);
    const canceled = await fixture.gantry.api('POST', `/projects/${projectId}/pipelines/${String(pipelineId)}/cancel`);
    assert.equal(canceled.status, 200, canceled.text);
    // The runner is told at its next trace patch, which is refused: the log is what the cancel found.
    assert.deepEqual(await appendTrace(running, 'Coverage: 99.00%\n'), { status: 403, jobStatus: 'canceled' });

    await waitUntil(async () => (await job(projectId, running.id)).coverage !== null, 'the canceled job gets its coverage');
    assert.deepEqual([(await job(projectId, running.id)).status, (await job(projectId, running.id)).coverage], ['canceled', 40]);
    await waitUntil(async () => (await pipelineCoverage(projectId, pipelineId)) === '40.00', "the pipeline's coverage");

    const jobs = await fixture.gantry.api('GET', `/projects/${projectId}/pipelines/${String(pipelineId)}/jobs`);
    const pending = jobs.list.find((item) => Number(item.id) !== running.id);
    assert.deepEqual([pending?.status, pending?.started_at, pending?.coverage], ['canceled', null, null], 'canceled before it started: no log, no coverage');
  });

  it('scans a running job an automatic cancel ends (workflow:auto_cancel:on_job_failure: all)', async () => {
    const ci = `workflow:\n  auto_cancel:\n    on_job_failure: all\nunit:\n${CI}e2e:\n${CI}`;
    const { projectId, pipelineId, runnerToken } = await pipelineOf('canceled-automatically', ci);
    const first = await claim(runnerToken);
    const second = await claim(runnerToken);
    assert.equal((await appendTrace(second, 'Coverage: 30.00%\n')).status, 202);
    const failed = await fetch(`${fixture.baseUrl}/api/v4/jobs/${String(first.id)}`, {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: first.token, state: 'failed', failure_reason: 'script_failure' }),
    });
    await failed.arrayBuffer();
    assert.equal(failed.status, 200);
    assert.equal((await job(projectId, second.id)).status, 'canceled', "the failure canceled the other job in its own event's transaction");
    await waitUntil(async () => (await pipelineCoverage(projectId, pipelineId)) === '30.00', "the automatically canceled job's coverage reaches the pipeline");
    assert.deepEqual([(await job(projectId, first.id)).coverage, (await job(projectId, second.id)).coverage], [null, 30]);
  });

  it('scans a job the runner ends after a graceful cancel, with its after_script output', async () => {
    const { projectId, pipelineId, runnerToken } = await pipelineOf('canceled-gracefully', `unit:\n${CI}`);
    const running = await claim(runnerToken, GRACEFUL);
    assert.equal((await appendTrace(running, 'Coverage: 10.00%\n')).status, 202);
    const canceled = await fixture.gantry.api('POST', `/projects/${projectId}/jobs/${String(running.id)}/cancel`);
    assert.equal(canceled.json.status, 'canceling', canceled.text);
    assert.deepEqual(await appendTrace(running, 'after_script: Coverage: 55.50%\n'), { status: 202, jobStatus: 'canceling' });
    const ended = await fetch(`${fixture.baseUrl}/api/v4/jobs/${String(running.id)}`, {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: running.token, state: 'failed', failure_reason: 'script_failure' }),
    });
    await ended.arrayBuffer();
    assert.equal(ended.status, 200);
    const record = await job(projectId, running.id);
    assert.deepEqual([record.status, record.coverage], ['canceled', 55.5], 'scanned before the final event');
    assert.equal(await pipelineCoverage(projectId, pipelineId), '55.50');
  });

  it('scans a canceling job a forced cancel ends (its runner never reported)', async () => {
    const { projectId, pipelineId, runnerToken } = await pipelineOf('canceled-forced', `unit:\n${CI}`);
    const running = await claim(runnerToken, GRACEFUL);
    const cancel = (force: boolean) => fixture.gantry.api('POST', `/projects/${projectId}/jobs/${String(running.id)}/cancel${force ? '?force=true' : ''}`);
    assert.equal((await cancel(false)).json.status, 'canceling');
    assert.equal((await appendTrace(running, 'Coverage: 66.60%\n')).status, 202);
    assert.equal((await cancel(true)).json.status, 'canceled');
    await waitUntil(async () => (await pipelineCoverage(projectId, pipelineId)) === '66.60', "the forced cancel's coverage reaches the pipeline");
    assert.equal((await job(projectId, running.id)).coverage, 66.6);
  });

  it('a job canceled while running with no coverage line in its log keeps none', async () => {
    const { projectId, pipelineId, runnerToken } = await pipelineOf('canceled-no-match', `unit:\n${CI}plain:\n  script: make\n`);
    const first = await claim(runnerToken);
    const second = await claim(runnerToken);
    const withRegex = first.name === 'unit' ? first : second;
    const without = first.name === 'unit' ? second : first;
    assert.equal((await appendTrace(withRegex, 'all good\n')).status, 202);
    assert.equal((await appendTrace(without, 'Coverage: 77.00%\n')).status, 202);
    const canceled = await fixture.gantry.api('POST', `/projects/${projectId}/pipelines/${String(pipelineId)}/cancel`);
    assert.equal(canceled.status, 200, canceled.text);
    const { stores } = fixture.gantry.coordinator.context;
    await waitUntil(async () => !(await stores.tasks.counts(new Date().toISOString())).some((entry) => entry.kind === 'job.canceled-coverage' && entry.ready + entry.running > 0), 'the scan task done');
    assert.deepEqual([(await job(projectId, withRegex.id)).coverage, (await job(projectId, without.id)).coverage], [null, null], 'no match; no regex');
    assert.equal(await pipelineCoverage(projectId, pipelineId), null);
  });
});
