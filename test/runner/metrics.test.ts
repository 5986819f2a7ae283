import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { FakeExecutor, type FakeHandler } from '../../src/executors/fake/fake-executor.ts';
import { parseRunnerConfig } from '../../src/runner/config/config.ts';
import { RunnerMetrics } from '../../src/runner/daemon/metrics.ts';
import { RunnerService } from '../../src/runner/daemon/service.ts';
import { FakeGitLab } from './fake-gitlab.ts';
import { capturingLogger, sample, until } from './observe.ts';
import { payload } from './support.ts';

describe('runner metrics and health on listen_address', () => {
  let gitlab: FakeGitLab;
  let workingDirectory: string;
  let service: RunnerService | null = null;
  beforeEach(async () => {
    gitlab = new FakeGitLab();
    await gitlab.start();
    gitlab.runnerTokens.add('metricstok-1');
    workingDirectory = await mkdtemp(path.join(os.tmpdir(), 'gantry-metrics-'));
  });
  afterEach(async () => {
    await service?.abort('test over', 5000);
    service = null;
    await gitlab.stop();
  });

  const start = async (toml: string, handler: FakeHandler, listenAddress = '127.0.0.1:0') => {
    const { config } = parseRunnerConfig(toml);
    const metrics = new RunnerMetrics();
    const { logger, lines } = capturingLogger('info', metrics.countLogLine);
    const executor = new FakeExecutor({ handler });
    service = new RunnerService({
      config,
      metrics,
      logger,
      workingDirectory,
      listenAddress,
      executorFor: () => executor,
      traceUpdateInterval: 0.05,
      timings: { checkIntervalMs: 30, minBackoffMs: 20, maxBackoffMs: 50, unhealthyPauseMs: 60_000 },
    });
    await service.start();
    const base = `http://${service.statusAddress}`;
    return { service, base, lines, scrape: async () => (await fetch(`${base}/metrics`)).text() };
  };
  const toml = (extra = '') =>
    `concurrent = 3\n[[runners]]\n  name = "metered"\n  url = "${gitlab.url}"\n  token = "metricstok-1"\n  executor = "shell"\n  limit = 2\n${extra}`;

  it('counts jobs by state and failure reason, coordinator requests by endpoint and status, and shows running jobs', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { scrape } = await start(toml(), async ({ request, jobId }) => {
      if (request.stage !== 'step_script') return { exitCode: 0 };
      request.onOutput(Buffer.from('working\n'));
      if (jobId === blocked.payload.id) await held;
      return { exitCode: jobId === failing.payload.id ? 3 : 0 };
    });
    const before = await scrape();
    assert.equal(sample(before, 'gitlab_runner_jobs_total', { runner: 'metricst' }), undefined, 'no job counted yet');
    assert.equal(sample(before, 'gitlab_runner_concurrent'), 3);
    assert.equal(sample(before, 'gitlab_runner_limit', { runner: 'metricst', runner_name: 'metered' }), 2);
    assert.ok((sample(before, 'process_cpu_user_seconds_total') ?? -1) >= 0, 'process metrics are there');
    assert.ok((sample(before, 'nodejs_heap_size_used_bytes') ?? -1) > 0);

    const succeeding = gitlab.enqueue(payload());
    const failing = gitlab.enqueue(payload());
    const blocked = gitlab.enqueue(payload());
    await until(() => succeeding.state === 'success' && failing.state === 'failed', 10_000, 'two finished jobs');
    // The coordinator sees a final state before the runner counts that job: wait for the counts.
    await until(async () => {
      const page = await scrape();
      return sample(page, 'gitlab_runner_jobs', { runner: 'metricst', state: 'running' }) === 1 && sample(page, 'gitlab_runner_job_duration_seconds_count', { runner: 'metricst' }) === 2;
    }, 10_000, 'two counted jobs and one running job in the gauge');

    const during = await scrape();
    assert.equal(sample(during, 'gitlab_runner_jobs_total', { runner: 'metricst', runner_name: 'metered' }), 3);
    assert.equal(sample(during, 'gitlab_runner_jobs_finished_total', { runner: 'metricst', state: 'success', failure_reason: '' }), 1);
    assert.equal(sample(during, 'gitlab_runner_jobs_finished_total', { runner: 'metricst', state: 'failed', failure_reason: 'script_failure' }), 1);
    assert.equal(sample(during, 'gitlab_runner_failed_jobs_total', { runner: 'metricst', failure_reason: 'script_failure' }), 1);
    assert.equal(sample(during, 'gitlab_runner_job_duration_seconds_count', { runner: 'metricst' }), 2);
    for (const stage of ['prepare_executor', 'get_sources', 'step_script']) {
      assert.ok((sample(during, 'gitlab_runner_job_stage_duration_seconds_count', { runner: 'metricst', stage }) ?? 0) >= 2, `stage ${stage} timed`);
    }
    assert.equal(sample(during, 'gitlab_runner_api_request_statuses_total', { runner: 'metricst', endpoint: 'request_job', status: '201' }), 3);
    assert.ok((sample(during, 'gitlab_runner_api_request_statuses_total', { endpoint: 'update_job', status: '200' }) ?? 0) >= 2, 'final updates counted');
    assert.ok((sample(during, 'gitlab_runner_api_request_statuses_total', { endpoint: 'patch_trace', status: '202' }) ?? 0) >= 2, 'trace patches counted');

    release();
    await until(() => blocked.state === 'success', 10_000, 'the held job');
    await until(async () => sample(await scrape(), 'gitlab_runner_jobs', { runner: 'metricst', state: 'running' }) === 0, 10_000, 'no running job');
    assert.equal(sample(await scrape(), 'gitlab_runner_jobs_finished_total', { runner: 'metricst', state: 'success', failure_reason: '' }), 2);
  });

  it('counts warnings and errors logged, and 403 answers by endpoint; /health turns 503 when every entry is disabled', async () => {
    const { base, scrape, lines } = await start(toml().replace('metricstok-1', 'revoked-token'), () => ({ exitCode: 0 }));
    const healthy = await fetch(`${base}/health`);
    assert.equal(healthy.status, 200);
    assert.equal(((await healthy.json()) as { status: string }).status, 'ok');
    await until(() => lines.some((line) => /is not healthy and will be disabled/.test(line.msg)), 10_000, 'the entry to be disabled');
    const text = await scrape();
    assert.equal(sample(text, 'gitlab_runner_api_request_statuses_total', { runner: 'revoked-', endpoint: 'request_job', status: '403' }), 3);
    assert.equal(sample(text, 'gitlab_runner_errors_total', { level: 'warning' }), lines.filter((line) => line.level === 40).length);
    assert.equal(sample(text, 'gitlab_runner_errors_total', { level: 'error' }), 1);
    assert.equal(sample(text, 'gitlab_runner_healthy', { runner: 'revoked-' }), 0);
    const unhealthy = await fetch(`${base}/health`);
    assert.equal(unhealthy.status, 503);
    assert.deepEqual(await unhealthy.json(), { status: 'unhealthy', concurrent: 3, jobs: 0, runners: [{ runner: 'revoked-', name: 'metered', healthy: false, running: 0 }] });
  });

  it('answers 404 and 405 for anything else, serves HEAD, and closes its port on shutdown', async () => {
    const { base, service: running } = await start(toml(), () => ({ exitCode: 0 }));
    assert.equal((await fetch(`${base}/debug/pprof`)).status, 404);
    const posted = await fetch(`${base}/metrics`, { method: 'POST', body: 'x' });
    assert.equal(posted.status, 405);
    assert.equal(posted.headers.get('allow'), 'GET, HEAD');
    const head = await fetch(`${base}/metrics`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.match(head.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    assert.equal(await head.text(), '');
    await running.stop();
    service = null;
    await assert.rejects(fetch(`${base}/health`), 'nothing listens after stop()');
  });

  it('/health says stopping (503) after SIGQUIT while a job still runs', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { base, service: running } = await start(toml(), async ({ request }) => {
      if (request.stage === 'step_script') await held;
      return { exitCode: 0 };
    });
    const job = gitlab.enqueue(payload());
    await until(() => job.state === 'running', 10_000, 'the job to start');
    await until(() => running.daemon.status().runners[0].running === 1, 10_000, 'the job to be counted');
    const stopping = running.stop();
    const health = await fetch(`${base}/health`);
    assert.equal(health.status, 503);
    assert.equal(((await health.json()) as { status: string; jobs: number }).status, 'stopping');
    release();
    await stopping;
    service = null;
    assert.equal(job.state, 'success');
  });

  it('refuses an address it cannot listen on with one line', async () => {
    const first = await start(toml(), () => ({ exitCode: 0 }));
    const { config } = parseRunnerConfig(toml());
    const { logger } = capturingLogger();
    const second = new RunnerService({ config, logger, workingDirectory, listenAddress: first.service.statusAddress ?? '', executorFor: () => new FakeExecutor() });
    await assert.rejects(second.start(), (error: Error) => /^cannot listen on 127\.0\.0\.1:\d+ \(listen_address\): address already in use$/.test(error.message));
    await second.close();
  });
});
