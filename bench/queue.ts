/**
 * Runner job requests on SQLite, printed as one JSON line. Load for (a) comes from another
 * process (bench/support/load-json.ts, autocannon); the pollers of (b)–(c2) are HTTP clients
 * in this process.
 *  (a) idle `POST /jobs/request` answered 204 at once (no last_update: no long poll), req/s
 *      at 50 connections next to a bare fastify route that parses the same JSON body and
 *      answers 204 (target at least 0.40 of it); after a 2-second warm-up of each, the two
 *      loads alternate over 3 rounds and the figures are medians, with each round's ratio;
 *  (b) pickup latency with 100 long-polling runners: a manual job played through the API
 *      becomes pending → 201 received by one of them; p50 and p99 (target p99 under 50 ms).
 *      "Pending" is the moment the coordinator signals it, right after the commit;
 *  (c) 1,000 jobs (100 pipelines of 10) drained by 20 pollers: time, duplicates (must be 0),
 *      409 answers;
 *  (c2) pickup p50/p99 for a small project's runner while another project has 10,000
 *      pending jobs.
 *  (d) trace ingest from 100 concurrent jobs sending 64 KiB patches, MB/s (bench/trace-ingest.ts);
 *  (e) a 1 GiB artifact upload: coordinator RSS growth and speed next to copying the same file
 *      on the same disk (bench/artifact-upload.ts).
 * (d) and (e) run as child processes once (a)–(c2) are done and their coordinator is closed;
 * their JSON lines are nested as `trace_ingest` and `artifact_upload`, their headline figures
 * copied as d_… and e_….
 * Run: node --import tsx bench/queue.ts [seconds] [--seconds 5] [--trace-jobs 100]
 *      [--trace-patches 16] [--trace-patch-kib 64] [--artifact-mib 1024]
 *      [--quick]  (1 s load, 10 jobs × 4 patches of trace, a 16 MiB artifact: checks the script)
 *      [--only a,b,c,c2,d,e]  (just those parts, still one JSON line)
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs, promisify } from 'node:util';
import Fastify from 'fastify';
import { Agent, fetch as undiciFetch } from 'undici';
import type { BuildJobDefinition } from '../src/ci/model.ts';
import { createCoordinator, type Coordinator } from '../src/coordinator/app.ts';
import { PipelineProcessing } from '../src/coordinator/services/ci/pipelines/processing.ts';
import { silentLogger } from '../src/shared/logger.ts';
import type { JobWhen } from '../src/pipeline/types.ts';
import type { ProjectRecord } from '../src/storage/types.ts';
import { median, ratioTo } from './support/coordinator.ts';

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string' },
    'trace-jobs': { type: 'string' },
    'trace-patches': { type: 'string' },
    'trace-patch-kib': { type: 'string' },
    'artifact-mib': { type: 'string' },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
  },
});
/** `--only a,c2`: just those parts (a, b, c, c2, d, e), still one JSON line; every part by default. */
const PARTS = ['a', 'b', 'c', 'c2', 'd', 'e'];
const ONLY = flags.only === undefined ? null : new Set(flags.only.split(',').map((part) => part.trim()));
for (const part of ONLY ?? []) if (!PARTS.includes(part)) throw new Error(`bench/queue: --only takes ${PARTS.join(', ')} (got ${part})`);
const wants = (part: string): boolean => ONLY === null || ONLY.has(part);
const quick = flags.quick === true;
const SECONDS = Number(flags.seconds ?? positionals[0] ?? (quick ? 1 : 5));
/** (a) alternates its bare and coordinator loads this many times; its figures are medians. */
const ROUNDS = quick ? 1 : 3;
const TRACE_ARGS = [
  '--jobs', flags['trace-jobs'] ?? (quick ? '10' : '100'),
  '--patches', flags['trace-patches'] ?? (quick ? '4' : '16'),
  '--patch-kib', flags['trace-patch-kib'] ?? '64',
];
const ARTIFACT_MIB = flags['artifact-mib'] ?? (quick ? '16' : '1024');
for (const value of [SECONDS, ...TRACE_ARGS.filter((_, index) => index % 2 === 1).map(Number), Number(ARTIFACT_MIB)]) {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`bench/queue: sizes and seconds must be positive numbers (got ${value})`);
}
const ROOT_TOKEN = 'bench-root-token-0123456789';
const SUPPORT = path.join(import.meta.dirname, 'support');
const run = promisify(execFile);
const NOW = new Date().toISOString();
const FEATURES = { upload_multiple_artifacts: true, artifacts_exclude: true, refspecs: true, multi_build_steps: true, return_exit_code: true };
const INFO = { name: 'gitlab-runner', version: '13.12.0', revision: '7a6612da', platform: 'linux', architecture: 'amd64', executor: 'shell', features: FEATURES };
const agent = new Agent({ connections: 256, headersTimeout: 600_000, bodyTimeout: 600_000 });

function definition(name: string, when: JobWhen): BuildJobDefinition {
  return {
    name, baseName: name, stage: 'test', stageIndex: 0, when, startIn: null, allowFailure: when === 'manual', needs: null, dependencies: null,
    retry: { max: 0, when: [] }, timeout: null, interruptible: false, resourceGroup: null, tags: [], image: null, services: [], beforeScript: [],
    script: ['echo hi'], afterScript: [], variables: [], cache: [], artifacts: null, environment: null, coverage: null, parallel: null,
    inclusion: { included: true, decidedBy: 'default', matchedRule: null }, trigger: null,
  };
}

async function project(coordinator: Coordinator, name: string): Promise<ProjectRecord> {
  return coordinator.context.stores.projects.create({
    namespace_id: 1, creator_id: 1, name, path: name, description: '', default_branch: 'main', visibility: 'private', archived: false,
    issues_enabled: true, merge_requests_enabled: true, wiki_enabled: true, jobs_enabled: true, snippets_enabled: true, container_registry_enabled: false,
    resolve_outdated_diff_discussions: false, shared_runners_enabled: true, public_jobs: true, request_access_enabled: false,
    only_allow_merge_if_pipeline_succeeds: false, only_allow_merge_if_all_discussions_are_resolved: false, printing_merge_requests_link_enabled: true,
    lfs_enabled: true, tag_list: [], forked_from_id: null, runners_token: `reg-${name}-${Math.random().toString(36).slice(2)}`, import_status: 'none',
    import_error: null, avatar_url: null, ci_config_path: null, pending_delete: false, pending_instance_id: null, created_at: NOW, updated_at: NOW, last_activity_at: NOW,
  });
}

/** A pipeline of `count` jobs in one stage, processed (the bench's own processing: no runner is woken by it). */
async function pipeline(coordinator: Coordinator, target: ProjectRecord, count: number, when: JobWhen, process = true): Promise<number[]> {
  const { stores } = coordinator.context;
  const created = await stores.pipelines.create({ project_id: target.id, ref: 'main', sha: 'a'.repeat(40), source: 'push', status: process ? 'created' : 'pending', created_at: NOW });
  const [stage] = await stores.stages.insertMany(created.id, [{ name: 'test', position: 0, status: process ? 'created' : 'pending' }]);
  const jobs = await stores.ciTransactions.run((ci) =>
    ci.jobs.insertMany(
      Array.from({ length: count }, (_, index) => ({
        pipeline_id: created.id, project_id: target.id, stage_id: stage?.id ?? null, stage: 'test', stage_idx: 0, name: `job ${index}`, type: 'build' as const,
        status: process ? ('created' as const) : ('pending' as const), when, allow_failure: when === 'manual', ref: 'main', sha: created.sha, created_at: NOW,
        definition: definition(`job ${index}`, when),
      })),
    ),
  );
  if (process) await new PipelineProcessing({ transactions: stores.ciTransactions }).apply(created.id, { type: 'process' });
  return jobs.map((job) => job.id);
}

interface Answer {
  status: number;
  lastUpdate: string | null;
  jobId: number | null;
}

async function requestJob(base: string, token: string, lastUpdate?: string): Promise<Answer> {
  // Its own connection pool: 100 held requests would otherwise queue behind the default one.
  const response = await undiciFetch(`${base}/api/v4/jobs/request`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ info: INFO, token, ...(lastUpdate ? { last_update: lastUpdate } : {}) }),
    dispatcher: agent,
  });
  const text = await response.text();
  return { status: response.status, lastUpdate: response.headers.get('x-gitlab-last-update'), jobId: response.status === 201 ? ((JSON.parse(text) as { id: number }).id) : null };
}

async function register(base: string, registrationToken: string): Promise<string> {
  const response = await fetch(`${base}/api/v4/runners`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: registrationToken, info: INFO, run_untagged: true, locked: true, active: true }),
  });
  if (response.status !== 201) throw new Error(`register: ${response.status}`);
  return ((await response.json()) as { token: string }).token;
}

/**
 * A runner's loop as gitlab-runner v13.12 runs it with long polling: echo the last
 * X-GitLab-Last-Update, take a job when one comes, ask again. `onJob` sees each 201.
 */
function pollForever(base: string, token: string, onJob: (jobId: number) => void, stop: { stopped: boolean }): Promise<void> {
  return (async () => {
    let lastUpdate: string | undefined;
    while (!stop.stopped) {
      const answer = await requestJob(base, token, lastUpdate);
      if (answer.status === 201 && answer.jobId !== null) onJob(answer.jobId);
      if (answer.lastUpdate) lastUpdate = answer.lastUpdate;
    }
  })();
}

const percentile = (sorted: number[], fraction: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]! * 100) / 100;

/** Plays `jobIds` one at a time through the API; each pickup timed from the coordinator's "pending" signal to the runner's 201. */
async function pickups(base: string, coordinator: Coordinator, projectId: number, jobIds: number[], runnerTokens: string[]): Promise<{ p50: number; p99: number; max: number }> {
  let pendingAt = 0;
  const signal = coordinator.context.jobQueueSignal;
  const publish = signal.publish.bind(signal);
  // Instrumentation: processing signals right after the commit that made the job pending.
  signal.publish = (tick) => {
    pendingAt = performance.now();
    publish(tick);
  };
  const latencies: number[] = [];
  let picked: ((jobId: number) => void) | null = null;
  const stop = { stopped: false };
  const loops = runnerTokens.map((token) => pollForever(base, token, (jobId) => picked?.(jobId), stop));
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  for (const jobId of jobIds) {
    const received = new Promise<number>((resolve) => (picked = resolve));
    const play = await fetch(`${base}/api/v4/projects/${projectId}/jobs/${jobId}/play`, { method: 'POST', headers: { 'private-token': ROOT_TOKEN } });
    if (play.status !== 200) throw new Error(`play: ${play.status}`);
    const got = await received;
    if (got !== jobId) throw new Error(`expected job ${jobId}, a runner got ${got}`);
    latencies.push(performance.now() - pendingAt);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  signal.publish = publish;
  stop.stopped = true;
  // The loops end as their held requests do: close() answers them.
  void Promise.all(loops).catch(() => {});
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), max: percentile(latencies, 1) };
}

type Figures = Record<string, unknown>;

/** (a) idle requests next to a bare route. */
async function idleRequests(coordinator: Coordinator, base: string, figures: Figures): Promise<void> {
  const idle = await project(coordinator, 'idle');
  const idleToken = await register(base, idle.runners_token);
  const body = JSON.stringify({ info: INFO, token: idleToken });
  const bare = Fastify();
  bare.post('/bare', async (_request, reply) => reply.code(204).header('X-GitLab-Last-Update', 'lu-1').send());
  await bare.listen({ port: 0, host: '127.0.0.1' });
  // Alternated over rounds, each ratio against its own round's bare figure: this machine's speed drifts between loads.
  const rounds: Array<{ bare: number; idle: number; p99: number }> = [];
  try {
    // Warm-up, not counted: the first load of a fresh process runs before its code is optimised.
    if (!quick) for (const url of [`http://127.0.0.1:${(bare.server.address() as AddressInfo).port}/bare`, `${base}/api/v4/jobs/request`]) await loadJson(url, body, 2);
    for (let round = 0; round < ROUNDS; round += 1) {
      const bareRps = (await loadJson(`http://127.0.0.1:${(bare.server.address() as AddressInfo).port}/bare`, body)).rps;
      const idleLoad = await loadJson(`${base}/api/v4/jobs/request`, body);
      rounds.push({ bare: bareRps, idle: idleLoad.rps, p99: idleLoad.p99_ms });
    }
  } finally {
    await bare.close();
  }
  figures.a_bare_rps = median(rounds.map((round) => round.bare));
  figures.a_idle_request_rps = median(rounds.map((round) => round.idle));
  figures.a_idle_vs_bare = median(rounds.map((round) => ratioTo(round.bare, round.idle)));
  figures.a_idle_vs_bare_by_round = rounds.map((round) => ratioTo(round.bare, round.idle)).join(' ');
  figures.a_idle_p99_ms = median(rounds.map((round) => round.p99));
}

/** (b) 100 long-polling runners, one manual job played at a time. */
async function longPollPickups(coordinator: Coordinator, base: string, figures: Figures): Promise<void> {
  const busy = await project(coordinator, 'pickup');
  const manual = await pipeline(coordinator, busy, 200, 'manual');
  const pollers = await Promise.all(Array.from({ length: 100 }, () => register(base, busy.runners_token)));
  const b = await pickups(base, coordinator, busy.id, manual, pollers);
  figures.b_pollers = 100;
  figures.b_pickups = manual.length;
  figures.b_pickup_p50_ms = b.p50;
  figures.b_pickup_p99_ms = b.p99;
  figures.b_pickup_max_ms = b.max;
}

/** (c) 1,000 jobs drained by 20 pollers. */
async function drainQueue(coordinator: Coordinator, base: string, figures: Figures): Promise<void> {
  const drain = await project(coordinator, 'drain');
  for (let index = 0; index < 100; index += 1) await pipeline(coordinator, drain, 10, 'on_success');
  const drainers = await Promise.all(Array.from({ length: 20 }, () => register(base, drain.runners_token)));
  const taken: number[] = [];
  let conflicts = 0;
  const started = performance.now();
  await Promise.all(
    drainers.map(async (token) => {
      for (;;) {
        const answer = await requestJob(base, token);
        if (answer.status === 201 && answer.jobId !== null) taken.push(answer.jobId);
        else if (answer.status === 409) conflicts += 1;
        else return;
      }
    }),
  );
  figures.c_jobs = taken.length;
  figures.c_drain_seconds = Math.round((performance.now() - started) / 10) / 100;
  figures.c_jobs_per_second = Math.round(taken.length / ((performance.now() - started) / 1000));
  figures.c_duplicates = taken.length - new Set(taken).size;
  figures.c_409s = conflicts;
}

/** (c2) a small project's pickups while another project has 10,000 pending jobs. */
async function crowdedPickups(coordinator: Coordinator, base: string, figures: Figures): Promise<void> {
  const crowded = await project(coordinator, 'crowded');
  for (let index = 0; index < 10; index += 1) await pipeline(coordinator, crowded, 1_000, 'on_success', false);
  const small = await project(coordinator, 'small');
  const smallJobs = await pipeline(coordinator, small, 100, 'manual');
  const smallRunners = await Promise.all(Array.from({ length: 5 }, () => register(base, small.runners_token)));
  const c2 = await pickups(base, coordinator, small.id, smallJobs, smallRunners);
  figures.c2_other_project_pending = 10_000;
  figures.c2_pickup_p50_ms = c2.p50;
  figures.c2_pickup_p99_ms = c2.p99;
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'gantry-bench-queue-'));
  const coordinator = await createCoordinator({ dataDir: work, rootToken: ROOT_TOKEN, logger: silentLogger(), ci: { runTasks: false } });
  const figures: Figures = { database: 'sqlite', load_average_1m: Math.round(os.loadavg()[0]! * 100) / 100 };
  try {
    await coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(coordinator.app.server.address() as AddressInfo).port}`;
    if (wants('a')) await idleRequests(coordinator, base, figures);
    if (wants('b')) await longPollPickups(coordinator, base, figures);
    if (wants('c')) await drainQueue(coordinator, base, figures);
    if (wants('c2')) await crowdedPickups(coordinator, base, figures);
  } finally {
    await coordinator.close();
    await agent.close();
    await rm(work, { recursive: true, force: true });
  }

  // (d) and (e): their own scripts, one after the other, on a machine this process no longer loads.
  if (wants('d')) {
    const traceIngest = await childJson('trace-ingest.ts', TRACE_ARGS);
    figures.d_trace_jobs = traceIngest.jobs;
    figures.d_trace_patch_kib = traceIngest.patch_kib;
    figures.d_trace_ingest_mb_s = traceIngest.ingest_mb_s;
    figures.d_baseline_fs_append_datasync_mb_s = traceIngest.baseline_fs_append_datasync_mb_s;
    figures.trace_ingest = traceIngest;
  }
  if (wants('e')) {
    const artifactUpload = await childJson('artifact-upload.ts', [ARTIFACT_MIB]);
    figures.e_artifact_mib = artifactUpload.size_mib;
    figures.e_rss_growth_mb = artifactUpload.coordinator_rss_growth_mb;
    figures.e_upload_mib_s = artifactUpload.upload_mib_s;
    figures.e_copy_mib_s = artifactUpload.copy_mib_s;
    figures.e_speed_ratio = artifactUpload.speed_ratio;
    figures.artifact_upload = artifactUpload;
  }
  console.log(JSON.stringify(figures));
}

/** Runs bench/<script> and answers the JSON line it prints (its last line of output). */
async function childJson(script: string, args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, script), ...args], { maxBuffer: 16 * 1024 * 1024 });
  const line = stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    throw new Error(`bench/${script} printed no JSON line:\n${stdout}`);
  }
}

async function loadJson(url: string, body: string, seconds = SECONDS): Promise<{ rps: number; p99_ms: number }> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(SUPPORT, 'load-json.ts'), url, String(seconds), '50', body]);
  const result = JSON.parse(stdout) as { rps: number; p99_ms: number; non2xx: number; errors: number };
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result;
}

await main();
