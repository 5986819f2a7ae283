/**
 * Our runner against our coordinator on a real port: the coordinator listens in this process
 * (SQLite, or the test run's PostgreSQL), a runner registered with the instance registration
 * token runs in this process too (RunnerService, as `runner run` does) with the executor
 * asked for. Projects get their CI file through the commits API, whose push starts the
 * pipeline.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULTS, type RunnerConfig, type RunnerEntry } from '../../src/runner/config/config.ts';
import { RunnerService } from '../../src/runner/daemon/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import type { CoordinatorOptions } from '../../src/coordinator/app.ts';
import { startTestCoordinator, type TestCoordinator } from './coordinator.ts';
import { freePort } from './serve-process.ts';

export interface ContractOptions {
  executor: 'shell' | 'docker';
  tags?: string[];
  /** Runner entry overrides (output_limit, docker settings, ...). */
  entry?: Partial<RunnerEntry>;
  coordinator?: Partial<CoordinatorOptions>;
}

/** A project variable as POST /projects/:id/variables takes it. */
export interface ContractVariable {
  key: string;
  value: string;
  masked?: boolean;
  raw?: boolean;
  masked_and_hidden?: boolean;
}

export interface Contract {
  test: TestCoordinator;
  url: string;
  runnerToken: string;
  runner: RunnerService;
  /** A project whose first commit holds `files` (the CI file among them); answers its id and the pushed pipeline's id. */
  project(name: string, files: Record<string, string>, variables?: ContractVariable[]): Promise<{ projectId: number; pipelineId: number }>;
  /** Waits until the pipeline has a final status; answers it with its jobs (oldest first). */
  finished(projectId: number, pipelineId: number, timeoutMs?: number): Promise<{ status: string; jobs: Array<Record<string, unknown>> }>;
  trace(projectId: number, jobId: number): Promise<string>;
  close(): Promise<void>;
}

const FINAL = new Set(['success', 'failed', 'canceled', 'skipped', 'manual']);

export async function startContract(options: ContractOptions): Promise<Contract> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // The runner sends its trace as often as the coordinator's X-GitLab-Trace-Update-Interval says
  // (30 s while nobody reads the log): tests that wait for a line ask for every second.
  const test = await startTestCoordinator({
    externalUrl: url,
    extra: { logger: silentLogger(), ci: { runnerJobs: { traces: { intervalSeconds: 1, watchedIntervalSeconds: 1 } } }, ...options.coordinator },
  });
  await test.coordinator.app.listen({ port, host: '127.0.0.1' });
  const settings = await test.api('GET', '/application/settings');
  const registered = await test.api('POST', '/runners', {
    token: null,
    body: { token: settings.json.runners_registration_token, description: `contract-${options.executor}`, tag_list: (options.tags ?? []).join(','), run_untagged: (options.tags ?? []).length === 0 },
  });
  if (registered.status !== 201) throw new Error(`registration answered ${registered.status}: ${registered.text}`);
  const runnerToken = String(registered.json.token);
  const workingDirectory = mkdtempSync(path.join(tmpdir(), 'gantry-contract-runner-'));
  const entry: RunnerEntry = {
    name: `contract-${options.executor}`,
    url,
    token: runnerToken,
    executor: options.executor,
    limit: 0,
    requestConcurrency: 1,
    outputLimit: DEFAULTS.outputLimit,
    environment: [],
    shell: options.executor === 'docker' ? 'sh' : 'bash',
    debugTraceDisabled: false,
    docker: { pullPolicy: ['if-not-present'] },
    cache: { type: '', shared: false },
    featureFlags: {},
    ...options.entry,
  };
  const config: RunnerConfig = { concurrent: 2, checkInterval: 1, logLevel: 'warn', logFormat: 'runner', shutdownTimeout: 10, runners: [entry] };
  const runner = new RunnerService({ config, logger: silentLogger(), workingDirectory });
  await runner.start();

  const api = test.api;
  return {
    test,
    url,
    runnerToken,
    runner,
    async project(name, files, variables = []) {
      const created = await api('POST', '/projects', { body: { name } });
      if (created.status !== 201) throw new Error(`project answered ${created.status}: ${created.text}`);
      const projectId = Number(created.json.id);
      for (const variable of variables) {
        const saved = await api('POST', `/projects/${projectId}/variables`, { body: variable });
        if (saved.status !== 201) throw new Error(`variable answered ${saved.status}: ${saved.text}`);
      }
      const actions = Object.entries(files).map(([file_path, content]) => ({ action: 'create', file_path, content }));
      const commit = await api('POST', `/projects/${projectId}/repository/commits`, { body: { branch: 'main', commit_message: 'CI', actions } });
      if (commit.status !== 201) throw new Error(`commit answered ${commit.status}: ${commit.text}`);
      for (let attempt = 0; attempt < 200; attempt++) {
        const pipelines = await api('GET', `/projects/${projectId}/pipelines`);
        const first = pipelines.list[0];
        if (first) return { projectId, pipelineId: Number(first.id) };
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`no pipeline for the push to ${name}`);
    },
    async finished(projectId, pipelineId, timeoutMs = 60_000) {
      const started = Date.now();
      for (;;) {
        const pipeline = await api('GET', `/projects/${projectId}/pipelines/${pipelineId}`);
        if (FINAL.has(String(pipeline.json.status))) {
          const jobs = await api('GET', `/projects/${projectId}/pipelines/${pipelineId}/jobs?per_page=100&include_retried=true`);
          return { status: String(pipeline.json.status), jobs: [...jobs.list].sort((a, b) => Number(a.id) - Number(b.id)) };
        }
        if (Date.now() - started > timeoutMs) throw new Error(`pipeline ${pipelineId} still ${String(pipeline.json.status)} after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async trace(projectId, jobId) {
      return (await api('GET', `/projects/${projectId}/jobs/${jobId}/trace`)).text;
    },
    async close() {
      await runner.abort('test finished', 5_000).catch(() => undefined);
      await runner.close();
      await test.close();
      rmSync(workingDirectory, { recursive: true, force: true });
    },
  };
}
