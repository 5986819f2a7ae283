/**
 * From a cancel to the job's script stopping, with either runner, printed as one JSON line.
 * The script writes a line every 0.5 s (so it has trace to send) and runs until stopped. A job
 * is canceled (`POST /projects/:id/jobs/:id/cancel`) at a random moment 1–4 s after its script
 * started; measured: the wall time from the cancel request to the script's process exiting.
 *  - Gantry's runner (in this process, shell executor, as `runner run` runs it): it announces
 *    `cancel_gracefully` and holds a keep-alive open (`X-Gantry-Job-Watch`) that the coordinator
 *    answers the moment the job goes `canceling`. Target: under 1 s.
 *  - A stock gitlab-runner 18.x, replayed (no binary on this machine; see
 *    bench/support/stock-runner-replay.ts): it learns of a cancel only from the answer to its
 *    next trace PATCH, sent every `X-GitLab-Trace-Update-Interval`. Target: under 4 s with the
 *    coordinator's 3 s; the same replay against GitLab's 30 s is the baseline, measured in the
 *    same run (`--baseline-samples`, each up to 30 s).
 * The cost: job requests (trace PATCH, keep-alive PUT) per minute of one running job, counted by
 * a hook on the coordinator over `--cost-seconds` after a 4 s warm-up, for each configuration.
 * Run: npx tsx bench/cancel.ts [--samples 8] [--baseline-samples 2] [--cost-seconds 30]
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createCoordinator, type Coordinator } from '../src/coordinator/app.ts';
import { DEFAULTS, type RunnerConfig, type RunnerEntry } from '../src/runner/config/config.ts';
import { RunnerService } from '../src/runner/daemon/service.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { median } from './support/coordinator.ts';
import { StockRunnerReplay } from './support/stock-runner-replay.ts';

const TOKEN = 'bench-root-token-0123456789';
const TARGETS = { gantry_runner_ms_max: 1_000, stock_runner_ms_max: 4_000 };
const { values } = parseArgs({ options: { samples: { type: 'string', default: '8' }, 'baseline-samples': { type: 'string', default: '2' }, 'cost-seconds': { type: 'string', default: '30' } } });
const samples = Number(values.samples);
const baselineSamples = Number(values['baseline-samples']);
const costMs = Number(values['cost-seconds']) * 1000;
const WARM_UP_MS = 4_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** When the cancel comes after the script started: at a random phase of the update interval, once the first PATCH set it. */
const randomDelay = (intervalMs: number) => WARM_UP_MS + Math.random() * intervalMs;

interface Bench {
  coordinator: Coordinator;
  base: string;
  work: string;
  /** PATCH and PUT requests per job id, counted by the coordinator. */
  jobRequests: Map<number, number>;
  api(method: string, url: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> & Array<Record<string, unknown>> }>;
  close(): Promise<void>;
}

async function startBench(intervalSeconds: number): Promise<Bench> {
  const work = await mkdtemp(path.join(tmpdir(), 'gantry-bench-cancel-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const coordinator = await createCoordinator({
    dataDir: path.join(work, 'data'), rootToken: TOKEN, logger: silentLogger(), externalUrl: base,
    ci: { runnerJobs: { traces: { intervalSeconds, watchedIntervalSeconds: intervalSeconds } } },
  });
  const jobRequests = new Map<number, number>();
  coordinator.app.addHook('onRequest', async (request) => {
    const match = /^\/api\/v4\/jobs\/(\d+)(\/trace)?(\?|$)/.exec(request.url);
    if (match && (request.method === 'PUT' || request.method === 'PATCH')) jobRequests.set(Number(match[1]), (jobRequests.get(Number(match[1])) ?? 0) + 1);
  });
  await coordinator.app.listen({ port, host: '127.0.0.1' });
  const api: Bench['api'] = async (method, url, body) => {
    const response = await fetch(`${base}/api/v4${url}`, { method, headers: { 'private-token': TOKEN, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, json: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> & Array<Record<string, unknown>> };
  };
  return {
    coordinator, base, work, jobRequests, api,
    async close() {
      await coordinator.close();
      await rm(work, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function createRunner(bench: Bench, tag: string): Promise<string> {
  const created = await bench.api('POST', '/user/runners', { runner_type: 'instance_type', description: `bench-${tag}`, tag_list: tag, run_untagged: false });
  if (created.status !== 201) throw new Error(`POST /user/runners answered ${created.status}`);
  return String(created.json.token);
}

/** A project whose CI file runs `script` tagged `tag` in pipelines made through the API. */
async function createProject(bench: Bench, name: string, tag: string, script: string): Promise<number> {
  const project = await bench.api('POST', '/projects', { name });
  const id = Number(project.json.id);
  // Only pipelines made through the API: the push's own pipeline would take the runner first.
  const ciFile = `workflow:\n  rules:\n    - if: '$CI_PIPELINE_SOURCE == "api"'\njob:\n  tags: [${tag}]\n  script:\n    - ${JSON.stringify(script)}\n  after_script:\n    - echo cleaned up\n`;
  const commit = await bench.api('POST', `/projects/${id}/repository/commits`, { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: ciFile }] });
  if (commit.status !== 201) throw new Error(`commit answered ${commit.status}`);
  return id;
}

async function newJob(bench: Bench, projectId: number): Promise<number> {
  const created = await bench.api('POST', `/projects/${projectId}/pipeline`, { ref: 'main' });
  if (created.status !== 201) throw new Error(`pipeline answered ${created.status}`);
  const jobs = (await bench.api('GET', `/projects/${projectId}/pipelines/${String(created.json.id)}/jobs`)).json;
  return Number(jobs[0]?.id);
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, debug?: () => Promise<string>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms${(await debug?.()) ?? ''}`);
    await sleep(5);
  }
}

/** Whether a process is gone (or a zombie: it stopped, its parent has yet to reap it). */
async function processGone(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (stat === null) return true;
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}

async function finalStatus(bench: Bench, projectId: number, jobId: number): Promise<string> {
  return waitFor(`job ${jobId} final`, 30_000, async () => {
    const status = String((await bench.api('GET', `/projects/${projectId}/jobs/${jobId}`)).json.status);
    return ['canceled', 'failed', 'success'].includes(status) ? status : undefined;
  });
}

interface Sample {
  cancelToStopMs: number;
  status: string;
}

/** Job requests per minute over `costMs` of a running job (after the warm-up), from the coordinator's count. */
async function requestRate(bench: Bench, jobId: number): Promise<number> {
  await sleep(WARM_UP_MS);
  const before = bench.jobRequests.get(jobId) ?? 0;
  await sleep(costMs);
  return Math.round((((bench.jobRequests.get(jobId) ?? 0) - before) / (costMs / 60_000)) * 10) / 10;
}

async function gantrySamples(bench: Bench, count: number): Promise<{ samples: Sample[]; perMinute: number }> {
  const token = await createRunner(bench, 'gantry');
  const runnerWork = await mkdtemp(path.join(tmpdir(), 'gantry-bench-cancel-runner-'));
  const pids = path.join(runnerWork, 'pids');
  const entry: RunnerEntry = {
    name: 'bench-gantry', url: bench.base, token, executor: 'shell', limit: 0, requestConcurrency: 1, outputLimit: DEFAULTS.outputLimit,
    environment: [], shell: 'bash', debugTraceDisabled: false, docker: {}, cache: { type: '', shared: false }, featureFlags: {},
  };
  const config: RunnerConfig = { concurrent: 1, checkInterval: 1, logLevel: 'warn', logFormat: 'runner', shutdownTimeout: 10, runners: [entry] };
  const runner = new RunnerService({ config, logger: silentLogger(), workingDirectory: runnerWork, systemId: 's_00000000bench' });
  await runner.start();
  try {
    const projectId = await createProject(bench, 'cancel-gantry', 'gantry', `mkdir -p ${pids}; echo $$ > ${pids}/$CI_JOB_ID; while :; do echo tick; sleep 0.5; done`);
    const results: Sample[] = [];
    let perMinute = Number.NaN;
    for (let index = 0; index <= count; index++) {
      const jobId = await newJob(bench, projectId);
      const pid = await waitFor(`job ${jobId}'s script`, 60_000, async () => {
        const job = (await bench.api('GET', `/projects/${projectId}/jobs/${jobId}`)).json;
        if (["failed", "canceled", "success"].includes(String(job.status))) throw new Error(`job ${jobId} ${String(job.status)} (${String(job.failure_reason)}) before its script ran: ${(await (await fetch(`${bench.base}/api/v4/projects/${projectId}/jobs/${jobId}/trace`, { headers: { "private-token": TOKEN } })).text()).slice(-800)}`);
        return Number((await readFile(path.join(pids, String(jobId)), 'utf8').catch(() => '')).trim()) || undefined;
      }, async () => `: ${JSON.stringify((await bench.api('GET', '/runners/1')).json)} ${JSON.stringify((await bench.api('GET', `/projects/${projectId}/jobs/1`)).json.status)} ${JSON.stringify((await bench.api('GET', `/projects/${projectId}/jobs/${jobId}`)).json)} ${(await (await fetch(`${bench.base}/api/v4/projects/${projectId}/jobs/${jobId}/trace`, { headers: { 'private-token': TOKEN } })).text()).slice(-600)}`);
      // The first job measures the cost; the others, the cancel.
      if (index === 0) perMinute = await requestRate(bench, jobId);
      else await sleep(randomDelay(3_000));
      const canceledAt = Date.now();
      const answer = await bench.api('POST', `/projects/${projectId}/jobs/${jobId}/cancel`);
      if (answer.status !== 201) throw new Error(`cancel answered ${answer.status}`);
      await waitFor(`job ${jobId}'s script to stop`, 60_000, async () => ((await processGone(pid)) ? true : undefined));
      const cancelToStopMs = Date.now() - canceledAt;
      const status = await finalStatus(bench, projectId, jobId);
      if (index > 0) results.push({ cancelToStopMs, status });
    }
    return { samples: results, perMinute };
  } finally {
    await runner.abort('bench finished', 5_000).catch(() => undefined);
    await runner.close();
    await rm(runnerWork, { recursive: true, force: true });
  }
}

async function stockSamples(bench: Bench, count: number, tag: string, intervalMs: number): Promise<{ samples: Sample[]; perMinute: number }> {
  const replay = new StockRunnerReplay(bench.base, await createRunner(bench, tag));
  const projectId = await createProject(bench, `cancel-${tag}`, tag, 'while :; do echo tick; sleep 0.5; done');
  const results: Sample[] = [];
  let perMinute = Number.NaN;
  for (let index = 0; index <= count; index++) {
    await newJob(bench, projectId);
    const job = await replay.takeJob('while :; do echo tick; sleep 0.5; done');
    if (index === 0) perMinute = await requestRate(bench, job.jobId);
    else await sleep(randomDelay(intervalMs));
    const canceledAt = Date.now();
    const answer = await bench.api('POST', `/projects/${projectId}/jobs/${job.jobId}/cancel`);
    if (answer.status !== 201) throw new Error(`cancel answered ${answer.status}`);
    const stoppedAt = await Promise.race([job.exited, sleep(60_000).then(() => Number.NaN)]);
    await job.done;
    const status = await finalStatus(bench, projectId, job.jobId);
    if (index > 0) results.push({ cancelToStopMs: stoppedAt - canceledAt, status });
  }
  return { samples: results, perMinute };
}

function summary({ samples: results, perMinute }: { samples: Sample[]; perMinute: number }) {
  const stops = results.map((sample) => sample.cancelToStopMs).sort((a, b) => a - b);
  return {
    samples: results.length,
    cancel_to_stop_ms: { p50: median(stops), max: stops.at(-1) ?? Number.NaN, all: stops },
    job_requests_per_minute: perMinute,
    final_statuses: [...new Set(results.map((sample) => sample.status))],
  };
}

const bench = await startBench(3);
let output: Record<string, unknown>;
try {
  const gantry = summary(await gantrySamples(bench, samples));
  const stock = summary(await stockSamples(bench, samples, 'stock', 3_000));
  output = { gantry_runner: gantry, stock_runner_replayed_interval_3s: stock };
} finally {
  await bench.close();
}
const baseline = await startBench(30);
try {
  output.stock_runner_replayed_interval_30s_baseline = summary(await stockSamples(baseline, baselineSamples, 'stock', 30_000));
} finally {
  await baseline.close();
}
const gantryMax = (output.gantry_runner as ReturnType<typeof summary>).cancel_to_stop_ms.max;
const stockMax = (output.stock_runner_replayed_interval_3s as ReturnType<typeof summary>).cancel_to_stop_ms.max;
console.log(JSON.stringify({
  bench: 'cancel',
  ...output,
  targets: TARGETS,
  met: { gantry_runner: gantryMax < TARGETS.gantry_runner_ms_max, stock_runner: stockMax < TARGETS.stock_runner_ms_max },
}));
process.exit(0);
