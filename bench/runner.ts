/**
 * The runner end to end against our coordinator, printed as one JSON line:
 *  1. A trivial job (`script: ["true"]`) from `POST /projects/:id/pipeline` to the pipeline's
 *     `success`, over 20 runs each on the shell and the docker executor (median, p90; targets
 *     shell under 300 ms, docker under 1.2 s with a local image), next to the bare cost of the
 *     job's own work measured in the same run (`bash -c true`; a busybox container created,
 *     started and waited for through the engine API).
 *  2. Where the runner's time goes: the mean of each stage (trace section) from the runner's
 *     own `gitlab_runner_job_stage_duration_seconds`.
 *  3. Runner RSS (a separate `bin/runner run` process with a shell and a docker `[[runners]]`
 *     entry): idle while long polling after the warm-up jobs, and the peak while it runs 4
 *     jobs at once (target idle under 100 MB), next to a bare node process that only waits.
 * The coordinator listens in this process; the runner is the built CLI (dist/). The Docker
 * engine must be running, with the local image gantry/busybox:latest.
 * Run: npx tsx bench/runner.ts [--runs 20]
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import Docker from 'dockerode';
import { createCoordinator, type Coordinator } from '../src/coordinator/app.ts';
import { silentLogger } from '../src/shared/logger.ts';

const TOKEN = 'bench-root-token-0123456789';
const BUSYBOX = 'gantry/busybox:latest';
const TARGETS = { shell_ms_p50: 300, docker_ms_p50: 1200, runner_idle_rss_mb: 100 };
const ROOT = path.resolve(import.meta.dirname, '..');

const { values } = parseArgs({ options: { runs: { type: 'string', default: '20' } } });
const runs = Number(values.runs);

const percentile = (samples: number[], p: number): number => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(samples.length * p))] ?? NaN;
const round = (value: number): number => Math.round(value * 10) / 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function api(coordinator: Coordinator, method: 'POST' | 'GET', url: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> & Array<Record<string, unknown>> }> {
  const response = await coordinator.app.inject({ method, url: `/api/v4${url}`, headers: { 'private-token': TOKEN, 'content-type': 'application/json' }, payload: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.statusCode, json: JSON.parse(response.body) as Record<string, unknown> & Array<Record<string, unknown>> };
}

async function projectWith(coordinator: Coordinator, name: string, ciFile: string): Promise<number> {
  const project = await api(coordinator, 'POST', '/projects', { name, initialize_with_readme: true });
  const id = project.json.id as number;
  const commit = await api(coordinator, 'POST', `/projects/${id}/repository/commits`, { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: ciFile }] });
  if (commit.status !== 201) throw new Error(`commit answered ${commit.status}`);
  return id;
}

/**
 * Creates a pipeline and waits for it to finish; answers the milliseconds from the request to
 * the pipeline's `finished_at`, which the coordinator records in the transaction that makes it
 * `success`. Polling is slow (25 ms) so the bench's own requests do not take the coordinator's
 * CPU from the runner it measures (they share this process).
 */
async function pipelineRun(coordinator: Coordinator, projectId: number): Promise<number> {
  const started = performance.now();
  const startedAt = Date.now();
  const created = await api(coordinator, 'POST', `/projects/${projectId}/pipeline`, { ref: 'main' });
  if (created.status !== 201) throw new Error(`pipeline answered ${created.status}: ${JSON.stringify(created.json)}`);
  for (;;) {
    const { json } = await api(coordinator, 'GET', `/projects/${projectId}/pipelines/${String(created.json.id)}`);
    if (json.status === 'success') {
      const elapsed = Date.parse(String(json.finished_at)) - startedAt;
      const jobs = (await api(coordinator, 'GET', `/projects/${projectId}/pipelines/${String(created.json.id)}/jobs`)).json;
      for (const job of jobs) {
        phases.queued.push(Number(job.queued_duration) * 1000);
        phases.running.push(Number(job.duration) * 1000);
      }
      return elapsed;
    }
    if (['failed', 'canceled', 'skipped'].includes(String(json.status))) {
      const jobs = (await api(coordinator, 'GET', `/projects/${projectId}/pipelines/${String(created.json.id)}/jobs`)).json;
      const job = jobs[0];
      const trace = job ? (await coordinator.app.inject({ url: `/api/v4/projects/${projectId}/jobs/${String(job.id)}/trace`, headers: { 'private-token': TOKEN } })).body : '';
      throw new Error(`pipeline ${String(created.json.id)} ${String(json.status)} (${String(job?.failure_reason)}): ${trace.slice(-1500)}`);
    }
    if (performance.now() - started > 60_000) throw new Error(`pipeline ${String(created.json.id)} still ${String(json.status)}`);
    await sleep(25);
  }
}

/** Waits until no pipeline of these projects is still pending or running. */
async function pipelinesFinished(coordinator: Coordinator, projectIds: number[]): Promise<void> {
  const started = performance.now();
  for (;;) {
    const lists = await Promise.all(projectIds.map((id) => api(coordinator, 'GET', `/projects/${id}/pipelines`)));
    const busy = lists.flatMap((list) => list.json).filter((pipeline) => !['success', 'failed', 'canceled', 'skipped', 'manual'].includes(String(pipeline.status)));
    if (busy.length === 0) return;
    if (performance.now() - started > 120_000) throw new Error(`warm-up pipelines still ${busy.map((pipeline) => String(pipeline.status)).join(', ')}`);
    await sleep(100);
  }
}

/** Where a measured run's time went, per job: waiting for a runner, then running (claim to final state). */
const phases = { queued: [] as number[], running: [] as number[] };
const takePhases = (): Record<string, number> => {
  const taken = { queued_ms_p50: round(percentile(phases.queued, 0.5)), running_ms_p50: round(percentile(phases.running, 0.5)) };
  phases.queued = [];
  phases.running = [];
  return taken;
};

async function registerRunner(coordinator: Coordinator, registrationToken: string, tags: string[]): Promise<string> {
  const response = await coordinator.app.inject({ method: 'POST', url: '/api/v4/runners', payload: { token: registrationToken, description: `bench-${tags.join('-') || 'shell'}`, tag_list: tags.join(','), run_untagged: tags.length === 0 } });
  if (response.statusCode !== 201) throw new Error(`registration answered ${response.statusCode}`);
  return (JSON.parse(response.body) as { token: string }).token;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port: free } = server.address() as AddressInfo;
      server.close(() => resolve(free));
    });
  });
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
}

/** The V8 heap (total, used) and external memory the runner reports in its own metrics, in MB. */
async function runnerHeapMb(metricsUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const value = (name: string): number => round(Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) / 1024 / 1024);
  return { heap_total: value('nodejs_heap_size_total_bytes'), heap_used: value('nodejs_heap_size_used_bytes'), external: value('nodejs_external_memory_bytes') };
}

type StageTotals = Map<string, { sum: number; count: number }>;

/** The runner's per-stage histogram totals for one runner entry. */
async function stageTotals(metricsUrl: string, runner: string): Promise<StageTotals> {
  const text = await (await fetch(metricsUrl)).text();
  const totals: StageTotals = new Map();
  for (const match of text.matchAll(/^gitlab_runner_job_stage_duration_seconds_(sum|count)\{([^}]*)\} (\S+)$/gm)) {
    const labels = match[2]!;
    if (!labels.includes(`runner_name="${runner}"`)) continue;
    const stage = /stage="([^"]+)"/.exec(labels)?.[1] ?? '?';
    const entry = totals.get(stage) ?? { sum: 0, count: 0 };
    if (match[1] === 'sum') entry.sum = Number(match[3]);
    else entry.count = Number(match[3]);
    totals.set(stage, entry);
  }
  return totals;
}

/** Mean milliseconds per stage between two snapshots (the measured runs only). */
function stageMeans(before: StageTotals, after: StageTotals): Record<string, number> {
  const means: Record<string, number> = {};
  for (const [stage, { sum, count }] of after) {
    const earlier = before.get(stage) ?? { sum: 0, count: 0 };
    if (count > earlier.count) means[stage] = round(((sum - earlier.sum) / (count - earlier.count)) * 1000);
  }
  return means;
}

function bareShellMs(): number {
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    spawnSync('bash', ['-c', 'true']);
    samples.push(performance.now() - started);
  }
  return round(percentile(samples, 0.5));
}

async function bareDockerMs(): Promise<number> {
  const docker = new Docker();
  const samples: number[] = [];
  for (let run = 0; run < Math.min(runs, 10); run++) {
    const started = performance.now();
    const container = await docker.createContainer({ Image: BUSYBOX, Cmd: ['true'] });
    await container.start();
    await container.wait();
    samples.push(performance.now() - started);
    await container.remove({ force: true });
  }
  return round(percentile(samples, 0.5));
}

/** The RSS of a node process that only waits: what any runner pays before its first module. */
async function bareNodeRssMb(): Promise<number> {
  const bare = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    await sleep(1_000);
    return rssMb(bare.pid!);
  } finally {
    bare.kill();
  }
}

const work = mkdtempSync(path.join(tmpdir(), 'gantry-bench-runner-'));
let runner: ChildProcess | undefined;
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
// The external URL is the jobs' clone URL: it must be where the coordinator listens.
const coordinator = await createCoordinator({ dataDir: path.join(work, 'data'), rootToken: TOKEN, externalUrl: url, logger: silentLogger() });
try {
  execFileSync('bash', [path.join(ROOT, 'scripts/build.sh')], { stdio: 'ignore' });
  await coordinator.app.listen({ port, host: '127.0.0.1' });
  const settings = await api(coordinator, 'GET', '/application/settings');
  const registrationToken = String(settings.json.runners_registration_token);

  const shellToken = await registerRunner(coordinator, registrationToken, []);
  const dockerToken = await registerRunner(coordinator, registrationToken, ['docker']);
  const metricsPort = port + 1;
  const config = [
    'concurrent = 4',
    'check_interval = 1',
    `listen_address = "127.0.0.1:${metricsPort}"`,
    '[[runners]]',
    'name = "shell"',
    `url = "${url}"`,
    `token = "${shellToken}"`,
    'executor = "shell"',
    '[[runners]]',
    'name = "docker"',
    `url = "${url}"`,
    `token = "${dockerToken}"`,
    'executor = "docker"',
    '[runners.docker]',
    `image = "${BUSYBOX}"`,
    'pull_policy = ["if-not-present"]',
  ].join('\n');
  writeFileSync(path.join(work, 'config.toml'), `${config}\n`, { mode: 0o600 });
  runner = spawn(path.join(ROOT, 'bin/runner'), ['run', '--config', path.join(work, 'config.toml'), '--working-directory', path.join(work, 'runner')], { stdio: 'ignore', env: { ...process.env, GANTRY_LOG_LEVEL: 'warn' } });
  const runnerPid = runner.pid!;

  const shellProject = await projectWith(coordinator, 'shell-bench', 'trivial:\n  script: ["true"]\n');
  const dockerProject = await projectWith(coordinator, 'docker-bench', `trivial:\n  image: ${BUSYBOX}\n  tags: [docker]\n  script: ["true"]\n`);
  const parallelProject = await projectWith(coordinator, 'parallel-bench', ['a', 'b', 'c', 'd'].map((name) => `sleep_${name}:\n  script: ["sleep 3"]\n`).join(''));
  // The commits' own pipelines warm everything up (clones, the image); wait for them to finish
  // (the 4 parallel `sleep 3` jobs included), so that the idle figure is taken while idle.
  await sleep(5_000);
  await pipelinesFinished(coordinator, [shellProject, dockerProject, parallelProject]);
  await sleep(1_000);
  const idleRss = rssMb(runnerPid);
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const idleHeap = await runnerHeapMb(metricsUrl);

  takePhases();
  const shellBefore = await stageTotals(metricsUrl, 'shell');
  const shellMs: number[] = [];
  for (let run = 0; run < runs; run++) shellMs.push(await pipelineRun(coordinator, shellProject));
  const shellPhases = takePhases();
  const shellStages = stageMeans(shellBefore, await stageTotals(metricsUrl, 'shell'));
  const dockerBefore = await stageTotals(metricsUrl, 'docker');
  const dockerMs: number[] = [];
  for (let run = 0; run < runs; run++) dockerMs.push(await pipelineRun(coordinator, dockerProject));
  const dockerPhases = takePhases();
  const dockerStages = stageMeans(dockerBefore, await stageTotals(metricsUrl, 'docker'));

  let peakRss = rssMb(runnerPid);
  const parallel = pipelineRun(coordinator, parallelProject);
  let done = false;
  void parallel.finally(() => (done = true));
  while (!done) {
    peakRss = Math.max(peakRss, rssMb(runnerPid));
    await sleep(50);
  }
  await parallel;

  const figures = {
    bench: 'runner',
    runs,
    shell_ms_p50: round(percentile(shellMs, 0.5)),
    shell_ms_p90: round(percentile(shellMs, 0.9)),
    bare_bash_true_ms_p50: bareShellMs(),
    shell_job: shellPhases,
    shell_stage_ms: shellStages,
    docker_ms_p50: round(percentile(dockerMs, 0.5)),
    docker_ms_p90: round(percentile(dockerMs, 0.9)),
    bare_container_true_ms_p50: await bareDockerMs(),
    docker_job: dockerPhases,
    docker_stage_ms: dockerStages,
    runner_idle_rss_mb: round(idleRss),
    runner_idle_memory_mb: idleHeap,
    bare_node_idle_rss_mb: round(await bareNodeRssMb()),
    runner_rss_4_jobs_peak_mb: round(peakRss),
    targets: TARGETS,
    targets_met:
      percentile(shellMs, 0.5) < TARGETS.shell_ms_p50 &&
      percentile(dockerMs, 0.5) < TARGETS.docker_ms_p50 &&
      idleRss < TARGETS.runner_idle_rss_mb,
  };
  console.log(JSON.stringify(figures));
} finally {
  if (runner && runner.exitCode === null) {
    const exited = new Promise((resolve) => runner!.once('exit', resolve));
    runner.kill('SIGTERM');
    await exited;
  }
  await coordinator.close();
  rmSync(work, { recursive: true, force: true });
}
