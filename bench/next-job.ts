/**
 * How soon Gantry's runner asks for its next job after a docker job, printed as one JSON line:
 * the time from the job's final `PUT /jobs/:id` (success) reaching the coordinator to the
 * runner's next `POST /jobs/request`, over `--runs` one-job pipelines (`GIT_STRATEGY: none`,
 * busybox, `true`), with the clean-up (container, network, work directory) in the background
 * as the runner does now, next to the same runner waiting for the clean-up first (as it did
 * before issue 25; the `cleanupBeforeNextJob` hook), measured in the same run. A stock
 * gitlab-runner asks again about 5 ms after its final update (issue 25).
 * The coordinator and the runner (docker executor, `concurrent = 1`) run in this process; the
 * Docker engine must be running, with the local image gantry/busybox:latest.
 * Run: npx tsx bench/next-job.ts [--runs 10]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createCoordinator } from '../src/coordinator/app.ts';
import { DEFAULTS, type RunnerConfig, type RunnerEntry } from '../src/runner/config/config.ts';
import { RunnerService } from '../src/runner/daemon/service.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { median } from './support/coordinator.ts';

const TOKEN = 'bench-root-token-0123456789';
const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' } } });
const runs = Number(values.runs);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const work = await mkdtemp(path.join(tmpdir(), 'gantry-bench-next-job-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const coordinator = await createCoordinator({ dataDir: path.join(work, 'data'), rootToken: TOKEN, logger: silentLogger(), externalUrl: base });
/** When each job's final update arrived, and every job request's arrival. */
const finals = new Map<number, number>();
const requests: number[] = [];
coordinator.app.addHook('preHandler', async (request) => {
  const now = performance.now();
  if (request.method === 'POST' && request.url.startsWith('/api/v4/jobs/request')) requests.push(now);
  const match = /^\/api\/v4\/jobs\/(\d+)$/.exec(request.url);
  if (request.method === 'PUT' && match && (request.body as { state?: string } | undefined)?.state === 'success' && !finals.has(Number(match[1]))) finals.set(Number(match[1]), now);
});
await coordinator.app.listen({ port, host: '127.0.0.1' });

async function api(method: string, url: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> & Array<Record<string, unknown>> }> {
  const response = await fetch(`${base}/api/v4${url}`, { method, headers: { 'private-token': TOKEN, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, json: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> & Array<Record<string, unknown>> };
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(10);
  }
}

async function measure(label: string, cleanupBeforeNextJob: boolean): Promise<number[]> {
  const created = await api('POST', '/user/runners', { runner_type: 'instance_type', description: label, tag_list: label, run_untagged: false });
  const entry: RunnerEntry = {
    name: label, url: base, token: String(created.json.token), executor: 'docker', limit: 0, requestConcurrency: 1, outputLimit: DEFAULTS.outputLimit,
    environment: [], shell: 'sh', debugTraceDisabled: false, docker: { image: 'gantry/busybox:latest', pullPolicy: ['if-not-present'] },
    cache: { type: '', shared: false }, featureFlags: {},
  };
  const config: RunnerConfig = { concurrent: 1, checkInterval: 1, logLevel: 'warn', logFormat: 'runner', shutdownTimeout: 10, runners: [entry] };
  const runnerWork = await mkdtemp(path.join(tmpdir(), 'gantry-bench-next-job-runner-'));
  const runner = new RunnerService({ config, logger: silentLogger(), workingDirectory: runnerWork, timings: { cleanupBeforeNextJob } });
  const project = await api('POST', '/projects', { name: label });
  const projectId = Number(project.json.id);
  const ciFile = `workflow:\n  rules:\n    - if: '$CI_PIPELINE_SOURCE == "api"'\nvariables:\n  GIT_STRATEGY: none\njob:\n  image: gantry/busybox:latest\n  tags: [${label}]\n  script: ["true"]\n`;
  await api('POST', `/projects/${projectId}/repository/commits`, { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: ciFile }] });
  await runner.start();
  const gaps: number[] = [];
  try {
    // One warm-up job, then the measured ones.
    for (let index = 0; index <= runs; index++) {
      const pipeline = await api('POST', `/projects/${projectId}/pipeline`, { ref: 'main' });
      const jobId = Number((await api('GET', `/projects/${projectId}/pipelines/${String(pipeline.json.id)}/jobs`)).json[0]?.id);
      const reported = await waitFor(`job ${jobId}'s final update`, 120_000, () => finals.get(jobId));
      const next = await waitFor(`the job request after job ${jobId}`, 30_000, () => requests.find((at) => at > reported));
      const status = await waitFor(`job ${jobId} success`, 30_000, async () => {
        const job = (await api('GET', `/projects/${projectId}/jobs/${jobId}`)).json;
        return ['success', 'failed', 'canceled'].includes(String(job.status)) ? String(job.status) : undefined;
      });
      if (status !== 'success') throw new Error(`job ${jobId} ${status}`);
      if (index > 0) gaps.push(Math.round((next - reported) * 10) / 10);
      // Let the background clean-up end before the next job, so each job starts alike.
      await sleep(1_000);
    }
  } finally {
    await runner.abort('bench finished', 10_000).catch(() => undefined);
    await runner.close();
    await rm(runnerWork, { recursive: true, force: true });
  }
  return gaps;
}

try {
  const before = await measure('cleanup-first', true);
  const after = await measure('cleanup-in-background', false);
  const summary = (gaps: number[]) => ({ p50_ms: median(gaps), max_ms: Math.max(...gaps), all_ms: gaps });
  console.log(JSON.stringify({ bench: 'next-job', runs, report_to_next_request: { cleanup_in_background: summary(after), cleanup_first_baseline: summary(before) } }));
} finally {
  await coordinator.close();
  await rm(work, { recursive: true, force: true });
}
process.exit(0);
