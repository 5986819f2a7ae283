import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { FakeExecutor, type FakeHandler } from '../../src/executors/fake/fake-executor.ts';
import { parseRunnerConfig } from '../../src/runner/config/config.ts';
import { RunnerDaemon } from '../../src/runner/daemon/daemon.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import type { Logger } from '../../src/shared/logger.ts';
import { FakeGitLab } from './fake-gitlab.ts';
import { capturingLogger } from './observe.ts';
import { payload } from './support.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(20);
  }
}

describe('runner daemon', () => {
  let gitlab: FakeGitLab;
  let workingDirectory: string;
  beforeEach(async () => {
    gitlab = new FakeGitLab();
    await gitlab.start();
    gitlab.runnerTokens.add('runnertok-daemon');
    workingDirectory = await mkdtemp(path.join(os.tmpdir(), 'gantry-daemon-'));
  });
  afterEach(async () => {
    await gitlab.stop();
  });

  const daemonWith = (toml: string, handler: FakeHandler, extra: { maxBuilds?: number; logger?: Logger; jobWatchSeconds?: number } = {}) => {
    const { config } = parseRunnerConfig(toml);
    const executor = new FakeExecutor({ handler });
    const daemon = new RunnerDaemon({
      config,
      logger: silentLogger(),
      workingDirectory,
      executorFor: () => executor,
      traceUpdateInterval: 0.05,
      timings: { checkIntervalMs: 30, minBackoffMs: 40, maxBackoffMs: 160, unhealthyPauseMs: 60_000 },
      ...extra,
    });
    return { daemon, executor };
  };
  const entry = (extra = '') => `concurrent = 2\n[[runners]]\n  name = "d"\n  url = "${gitlab.url}"\n  token = "runnertok-daemon"\n  executor = "shell"\n${extra}`;
  const quick: FakeHandler = ({ request }) => {
    request.onOutput(Buffer.from(`ran ${request.stage}\n`));
    return { exitCode: 0 };
  };

  it('takes queued jobs, runs them and reports their trace and state', async () => {
    const { daemon } = daemonWith(entry(), quick);
    const jobs = [gitlab.enqueue(payload()), gitlab.enqueue(payload())];
    await daemon.start();
    await until(() => jobs.every((job) => job.state === 'success'));
    await daemon.stop();
    for (const job of jobs) assert.match(job.trace.toString(), /ran step_script\n/);
    const requests = gitlab.requestsTo('POST', /jobs\/request/).map((request) => JSON.parse(request.body.toString()) as { info: { executor: string } });
    assert.equal(requests[0].info.executor, 'fake');
  });

  it('asks to hold a keep-alive for each job (X-Gantry-Job-Watch), unless told jobWatchSeconds 0 (runner exec)', async () => {
    const watchedPuts = () => gitlab.requestsTo('PUT', /^\/api\/v4\/jobs\/\d+$/).filter((request) => request.headers['x-gantry-job-watch'] !== undefined);
    const watching = daemonWith(entry(), quick);
    const first = gitlab.enqueue(payload());
    await watching.daemon.start();
    await until(() => first.state === 'success');
    await watching.daemon.stop();
    assert.ok(watchedPuts().length > 0, 'a held keep-alive was asked for');
    assert.equal(watchedPuts()[0]?.headers['x-gantry-job-watch'], '50');

    gitlab.requests.length = 0;
    const silent = daemonWith(entry(), quick, { jobWatchSeconds: 0 });
    const second = gitlab.enqueue(payload());
    await silent.daemon.start();
    await until(() => second.state === 'success');
    await silent.daemon.stop();
    assert.ok(gitlab.requestsTo('PUT', /^\/api\/v4\/jobs\/\d+$/).length > 0, 'the job reported its state');
    assert.deepEqual(watchedPuts(), []);
  });

  it('runs at most `limit` jobs of an entry at once', async () => {
    let running = 0;
    let most = 0;
    const { daemon } = daemonWith(entry('  limit = 1\n'), async ({ request }) => {
      if (request.stage !== 'step_script') return { exitCode: 0 };
      most = Math.max(most, ++running);
      await sleep(200);
      running--;
      return { exitCode: 0 };
    });
    const jobs = [gitlab.enqueue(payload()), gitlab.enqueue(payload())];
    await daemon.start();
    await until(() => jobs.every((job) => job.state === 'success'));
    await daemon.stop();
    assert.equal(most, 1);
  });

  it('with concurrent = 2 runs two jobs side by side', async () => {
    let running = 0;
    let most = 0;
    const { daemon } = daemonWith(entry(), async ({ request }) => {
      if (request.stage !== 'step_script') return { exitCode: 0 };
      most = Math.max(most, ++running);
      await sleep(300);
      running--;
      return { exitCode: 0 };
    });
    const jobs = [gitlab.enqueue(payload()), gitlab.enqueue(payload())];
    await daemon.start();
    await until(() => jobs.every((job) => job.state === 'success'));
    await daemon.stop();
    assert.equal(most, 2);
  });

  it('a job request in flight holds a concurrent slot: no job is handed out to wait for one', async () => {
    const { daemon } = daemonWith(entry('  request_concurrency = 2\n').replace('concurrent = 2', 'concurrent = 1'), async ({ request }) => {
      if (request.stage === 'step_script') await sleep(300);
      return { exitCode: 0 };
    });
    const jobs = [gitlab.enqueue(payload()), gitlab.enqueue(payload()), gitlab.enqueue(payload())];
    let mostHandedOut = 0;
    await daemon.start();
    await until(() => {
      mostHandedOut = Math.max(mostHandedOut, jobs.filter((job) => job.state === 'running').length);
      return jobs.every((job) => job.state === 'success');
    });
    await daemon.stop();
    assert.equal(mostHandedOut, 1, 'jobs handed out and not finished at once, with concurrent = 1');
  });

  it('stop() (SIGQUIT) stops asking for jobs but lets the running one finish', async () => {
    const { daemon } = daemonWith(entry(), async ({ request }) => {
      if (request.stage === 'step_script') await sleep(400);
      return { exitCode: 0 };
    });
    const job = gitlab.enqueue(payload());
    await daemon.start();
    await until(() => job.state === 'running');
    await daemon.stop();
    assert.equal(job.state, 'success');
    const before = gitlab.requestsTo('POST', /jobs\/request/).length;
    await sleep(150);
    assert.equal(gitlab.requestsTo('POST', /jobs\/request/).length, before);
  });

  it('abort() (SIGTERM) fails the running job with runner_system_failure', async () => {
    const { daemon } = daemonWith(entry(), async ({ request }) => {
      if (request.stage === 'step_script') {
        await new Promise<void>((resolve) => request.signal.addEventListener('abort', () => resolve(), { once: true }));
        return { exitCode: 137 };
      }
      return { exitCode: 0 };
    });
    const job = gitlab.enqueue(payload());
    await daemon.start();
    await until(() => job.trace.includes('step_script'));
    assert.equal(await daemon.abort('terminated', 5000), true);
    assert.equal(job.state, 'failed');
    assert.equal(job.failureReason, 'runner_system_failure');
    assert.match(job.trace.toString(), /ERROR: Job failed \(system failure\): aborted: terminated/);
  });

  it('disables an entry after three 403s in a row', async () => {
    const { daemon } = daemonWith(entry().replace('runnertok-daemon', 'not-a-valid-token'), quick);
    await daemon.start();
    await until(() => gitlab.requestsTo('POST', /jobs\/request/).length >= 3);
    await sleep(300);
    assert.equal(gitlab.requestsTo('POST', /jobs\/request/).length, 3);
    await daemon.stop();
  });

  it('stops after --max-builds jobs', async () => {
    const { daemon } = daemonWith(entry(), quick, { maxBuilds: 1 });
    const jobs = [gitlab.enqueue(payload()), gitlab.enqueue(payload())];
    await daemon.start();
    await daemon.finished();
    assert.deepEqual(jobs.map((job) => job.state), ['success', 'pending']);
  });

  it('backs off on 5xx and 429 answers, doubling up to the cap, and takes jobs again once the coordinator answers', async () => {
    const { logger, lines } = capturingLogger();
    let failures = 0;
    gitlab.intercept = (request) => {
      if (request.path !== '/api/v4/jobs/request' || failures >= 5) return undefined;
      failures++;
      return failures === 3 ? { status: 429, body: 'slow down' } : { status: 503, body: 'maintenance' };
    };
    const { daemon } = daemonWith(entry(), quick, { logger });
    const job = gitlab.enqueue(payload());
    await daemon.start();
    await until(() => job.state === 'success');
    await daemon.stop();
    const retries = lines.filter((line) => line.msg.startsWith('checking for jobs failed')).map((line) => [line.status, line.retryInMs]);
    assert.deepEqual(retries, [
      [503, 40],
      [503, 80],
      [429, 160],
      [503, 160],
      [503, 160],
    ]);
  });

  it('backs off on network errors (the coordinator is down) without counting them as 403s', async () => {
    const { logger, lines } = capturingLogger();
    await gitlab.stop();
    const { daemon } = daemonWith(entry(), quick, { logger });
    await daemon.start();
    await until(() => lines.filter((line) => line.msg === 'checking for jobs failed').length >= 4);
    await daemon.stop();
    const failed = lines.filter((line) => line.msg === 'checking for jobs failed');
    assert.deepEqual(failed.slice(0, 4).map((line) => line.retryInMs), [40, 80, 160, 160]);
    assert.match(String(failed[0].err), /ECONNREFUSED/);
    assert.equal(daemon.status().runners[0].healthy, true, 'network errors never disable an entry');
    await gitlab.start();
  });

  it('a 403 run is broken by any other answer: 403, 403, 503, 403 does not disable the entry', async () => {
    const answers = [403, 403, 503, 403];
    gitlab.intercept = (request) => {
      if (request.path !== '/api/v4/jobs/request') return undefined;
      const status = answers.shift();
      return status ? { status, headers: { 'content-type': 'application/json' }, body: '{"message":"no"}' } : undefined;
    };
    const { daemon } = daemonWith(entry(), quick);
    const job = gitlab.enqueue(payload());
    await daemon.start();
    await until(() => job.state === 'success');
    await daemon.stop();
    assert.equal(daemon.status().runners[0].healthy, true);
  });

  it('logs each job through a child logger carrying job id, project and runner', async () => {
    const { logger, lines } = capturingLogger();
    const { daemon } = daemonWith(entry(), quick, { logger });
    const job = gitlab.enqueue(payload({ job_info: { name: 'build', stage: 'test', project_id: 42, project_name: 'p' } }));
    await daemon.start();
    await until(() => job.state === 'success');
    await daemon.stop();
    const started = lines.find((line) => line.msg === 'job started');
    const finished = lines.find((line) => line.msg === 'job finished');
    assert.deepEqual([started?.job, started?.project, started?.runner, started?.name, started?.jobName], [job.payload.id, 42, 'runnerto', 'd', 'build']);
    assert.deepEqual([finished?.job, finished?.project, finished?.runner, finished?.state], [job.payload.id, 42, 'runnerto', 'success']);
  });
});
