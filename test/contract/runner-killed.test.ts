/**
 * Contract: a runner killed (SIGKILL) in the middle of a job and started again. The job it
 * held is failed by the coordinator's stuck-job sweep (nobody updates it any more), and the
 * restarted runner takes and finishes new work.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { silentLogger } from '../../src/shared/logger.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { freePort } from '../helpers/serve-process.ts';

const RUNNER_BIN = path.resolve(import.meta.dirname, '../../bin/runner');

/** The runner's log goes to `logFile`, so a failure can show what the runner saw. */
function runSingle(url: string, token: string, workDir: string, logFile: string): ChildProcess {
  const log = openSync(logFile, 'a');
  return spawn(RUNNER_BIN, ['run-single', '--url', url, '--token', token, '--executor', 'shell', '--working-directory', workDir], {
    env: { ...process.env, GANTRY_LOG_LEVEL: 'info' },
    stdio: ['ignore', log, log],
    detached: true,
  });
}

async function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid!, signal);
  await exited;
}

/** Polls `probe` until it answers; on timeout the error carries `explain()` (the state a reader needs). */
async function until<T>(what: string, probe: () => Promise<T | undefined>, explain: () => Promise<string>, timeoutMs = 60_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}\n${await explain()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('runner ⇄ coordinator contract: a runner killed mid-job', () => {
  const workDir = mkdtempSync(path.join(tmpdir(), 'gantry-contract-killed-'));
  let test: TestCoordinator | undefined;
  const runners: ChildProcess[] = [];
  after(async () => {
    for (const runner of runners) await kill(runner, 'SIGKILL');
    await test?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('fails the orphaned job as stuck and runs new jobs on the restarted runner', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    test = await startTestCoordinator({
      externalUrl: url,
      // Traces every second (the line the test waits for); a job without updates for 8 s is stuck
      // (patches touch a running job at most every 5 s).
      extra: { logger: silentLogger(), ci: { runnerJobs: { traces: { intervalSeconds: 1, watchedIntervalSeconds: 1 }, stale: { runningStuckMs: 8_000, intervalMs: 500 } } } },
    });
    await test.coordinator.app.listen({ port, host: '127.0.0.1' });
    const api = test.api;
    const settings = await api('GET', '/application/settings');
    const registered = await api('POST', '/runners', { token: null, body: { token: settings.json.runners_registration_token, description: 'killed' } });
    const token = String(registered.json.token);

    const project = await api('POST', '/projects', { body: { name: 'killed' } });
    const projectId = Number(project.json.id);
    // The first pipeline's job hangs (the runner is killed under it); later ones finish at once.
    const ci = 'work:\n  script:\n    - echo started\n    - test "$CI_PIPELINE_IID" != 1 || sleep 60\n    - echo finished\n';
    await api('POST', `/projects/${projectId}/repository/commits`, { body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: ci }] } });

    const runnerLog = path.join(workDir, 'runner.log');
    const explain = async (): Promise<string> => {
      const pipelines = (await api('GET', `/projects/${projectId}/pipelines`)).list.map((pipeline) => `#${String(pipeline.id)} ${String(pipeline.status)}`);
      const jobs = (await api('GET', `/projects/${projectId}/jobs`)).list;
      const lines = [`pipelines: ${pipelines.join(', ') || 'none'}`];
      for (const job of jobs) {
        const trace = (await api('GET', `/projects/${projectId}/jobs/${String(job.id)}/trace`)).text;
        lines.push(`job ${String(job.id)}: ${String(job.status)} ${String(job.failure_reason ?? '')}; trace ends: ${JSON.stringify(trace.slice(-600))}`);
      }
      lines.push(`runner log ends: ${readFileSync(runnerLog, 'utf8').slice(-3000)}`);
      return lines.join('\n');
    };

    runners.push(runSingle(url, token, workDir, runnerLog));
    const orphan = await until('the first job to run', async () => {
      const jobs = (await api('GET', `/projects/${projectId}/jobs`)).list;
      const job = jobs.find((candidate) => candidate.status === 'running');
      if (!job) return undefined;
      const trace = (await api('GET', `/projects/${projectId}/jobs/${String(job.id)}/trace`)).text;
      return trace.includes('started') ? Number(job.id) : undefined;
    }, explain);
    await kill(runners[0]!, 'SIGKILL');

    const failed = await until('the orphaned job to fail', async () => {
      const job = (await api('GET', `/projects/${projectId}/jobs/${orphan}`)).json;
      return job.status === 'running' ? undefined : job;
    }, explain);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.failure_reason, 'stuck_or_timeout_failure');

    runners.push(runSingle(url, token, workDir, runnerLog));
    const second = await api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'main' } });
    assert.equal(second.status, 201);
    const status = await until('the second pipeline to finish', async () => {
      const pipeline = (await api('GET', `/projects/${projectId}/pipelines/${String(second.json.id)}`)).json;
      return ['success', 'failed', 'canceled'].includes(String(pipeline.status)) ? String(pipeline.status) : undefined;
    }, explain);
    assert.equal(status, 'success');
  });
});
