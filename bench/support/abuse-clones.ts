/**
 * Heavy git work against API latency: N concurrent clones (default 50) of a generated
 * 20,000-file repository through our git HTTP while `GET /api/v4/projects/:id` is timed,
 * next to baselines measured in the same run: the same GET with no clone running, and one
 * clone on its own. Target: p99 under 100 ms with 50 clones, and every clone completes.
 *
 * The clone clients run on this machine too; they run under `nice -n 19` so that what is
 * measured is the coordinator sharing the CPU with its own git work (clients elsewhere).
 * Figures are milliseconds unless named otherwise.
 */
import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { execa } from '#deps/execa';
import { type BenchCoordinator, GIT_ENV, percentile, ROOT_TOKEN } from './coordinator.ts';

export const GET_P99_TARGET_MS = 100;
const FILES_PER_DIRECTORY = 100;
const HISTORY = 200;
const BASELINE_REQUESTS = 300;
/** Pause between two timed GETs: a steady reader, not a flood. */
const GET_INTERVAL_MS = 10;

export interface AbuseClonesFigures {
  clones: number;
  files: number;
  commits: number;
  work_slots: number;
  generate_ms: number;
  get_baseline_p50_ms: number;
  get_baseline_p99_ms: number;
  get_baseline_samples: number;
  get_during_clones_p50_ms: number;
  get_during_clones_p99_ms: number;
  get_during_clones_max_ms: number;
  get_during_clones_samples: number;
  clones_completed: number;
  /** One clone with nothing else running, before the N. */
  baseline_single_clone_s: number;
  clone_p50_s: number;
  clone_max_s: number;
  all_clones_s: number;
  peak_running: number;
  peak_queued: number;
  /** The coordinator's event loop while the clones ran (it shares this process): a blocked loop shows here, a starved CPU does not. */
  event_loop_delay_p99_ms: number;
  event_loop_delay_max_ms: number;
}

const filePath = (index: number): string => `dir-${String(Math.floor(index / FILES_PER_DIRECTORY)).padStart(3, '0')}/file-${String(index).padStart(5, '0')}.txt`;

/** About 1 KB of hex lines per file: a pack of several MB, like real source. */
function fileContent(index: number, revision: number): string {
  let text = `file ${index} revision ${revision}\n`;
  let seed = (index * 2654435761 + revision * 40503) >>> 0;
  for (let line = 0; line < 16; line += 1) {
    let hex = '';
    for (let word = 0; word < 8; word += 1) {
      seed = (seed * 1664525 + 1013904223) >>> 0;
      hex += seed.toString(16).padStart(8, '0');
    }
    text += `${hex}\n`;
  }
  return text;
}

/** One commit adding every file, then HISTORY one-file edits, through git fast-import. */
async function generate(gitDir: string, files: number): Promise<void> {
  const importer = execa('git', [`--git-dir=${gitDir}`, 'fast-import', '--quiet'], { stdin: 'pipe', env: GIT_ENV, extendEnv: false });
  const write = (text: string): Promise<void> =>
    new Promise((resolve) => {
      if (importer.stdin.write(text)) resolve();
      else importer.stdin.once('drain', resolve);
    });
  const start = Date.UTC(2021, 0, 1) / 1000;
  for (let commit = 0; commit <= HISTORY; commit += 1) {
    const message = `Change ${commit}\n`;
    let text = `commit refs/heads/main\nmark :${commit + 1}\n`;
    text += `author Bench <bench@example.com> ${start + commit * 60} +0000\ncommitter Bench <bench@example.com> ${start + commit * 60} +0000\n`;
    text += `data ${Buffer.byteLength(message)}\n${message}\n`;
    if (commit > 0) text += `from :${commit}\n`;
    const changed = commit === 0 ? Array.from({ length: files }, (_, index) => index) : [(commit * 97) % files];
    for (const index of changed) {
      const content = fileContent(index, commit);
      text += `M 100644 inline ${filePath(index)}\ndata ${Buffer.byteLength(content)}\n${content}\n`;
    }
    await write(text);
  }
  importer.stdin.end();
  await importer;
}

/** Times one GET over a keep-alive connection. */
function timedGet(agent: http.Agent, port: number, route: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.get({ host: '127.0.0.1', port, path: route, agent, headers: { 'private-token': ROOT_TOKEN } }, (response) => {
      response.resume();
      response.on('end', () => (response.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`${route}: ${response.statusCode}`))));
    });
    request.on('error', reject);
  });
}

/**
 * Runs the clones from one shell of their own, so that starting fifty client processes does
 * not block the coordinator's event loop (this process) the way its own spawns would.
 * Each clone reports "<index> <exit code> <milliseconds>"; a clone counts when it has main's tip.
 */
async function cloneAll(url: string, work: string, clones: number, head: string): Promise<Array<{ ok: boolean; seconds: number }>> {
  const script = `
    for index in $(seq 0 $(($CLONES - 1))); do
      (
        began=$(date +%s%N)
        nice -n 19 git clone --bare --quiet "$URL" "$WORK/clone-$index" 2>/dev/null
        code=$?
        tip=$(git --git-dir="$WORK/clone-$index" rev-parse refs/heads/main 2>/dev/null)
        [ "$code" = 0 ] && [ "$tip" != "$HEAD" ] && code=99
        echo "$index $code $(( ($(date +%s%N) - began) / 1000000 ))"
        rm -rf "$WORK/clone-$index"
      ) &
    done
    wait`;
  const { stdout } = await execa('bash', ['--noprofile', '--norc', '-c', script], {
    env: { ...GIT_ENV, CLONES: String(clones), URL: url, WORK: work, HEAD: head },
    extendEnv: false,
  });
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [, code, milliseconds] = line.split(' ');
      return { ok: code === '0', seconds: Number(milliseconds) / 1000 };
    });
}

export async function abuseClones(coordinator: BenchCoordinator, clones = 50, files = 20_000): Promise<AbuseClonesFigures> {
  const work = path.join(coordinator.work, 'clones');
  await mkdir(work, { recursive: true });
  const { port, base, repositories } = coordinator;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const project = await coordinator.createProject({ name: 'abuse-clones', visibility: 'public', initialize_with_readme: false });
    const gitDir = repositories.open(project.id).path;
    const generating = performance.now();
    await generate(gitDir, files);
    // What the coordinator does once a push has landed: gc with a reachability bitmap.
    await repositories.runHousekeeping(project.id, { gc: true });
    const generateMs = Math.round(performance.now() - generating);
    const head = (await execa('git', [`--git-dir=${gitDir}`, 'rev-parse', 'refs/heads/main'], { env: GIT_ENV, extendEnv: false })).stdout.trim();

    const cloneUrl = `${base}/${project.path_with_namespace}.git`;
    const [single] = await cloneAll(cloneUrl, work, 1, head);
    if (!single?.ok) throw new Error('the single baseline clone failed');

    const route = `/api/v4/projects/${project.id}`;
    for (let warm = 0; warm < 20; warm += 1) await timedGet(agent, port, route);
    const baseline: number[] = [];
    for (let index = 0; index < BASELINE_REQUESTS; index += 1) {
      baseline.push(await timedGet(agent, port, route));
      await new Promise((resolve) => setTimeout(resolve, GET_INTERVAL_MS));
    }

    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    let running = true;
    let peakRunning = 0;
    let peakQueued = 0;
    const during: number[] = [];
    const sampler = (async () => {
      while (running) {
        during.push(await timedGet(agent, port, route));
        peakRunning = Math.max(peakRunning, repositories.work.running);
        peakQueued = Math.max(peakQueued, repositories.work.queued);
        await new Promise((resolve) => setTimeout(resolve, GET_INTERVAL_MS));
      }
    })();
    const started = performance.now();
    const durations = await cloneAll(cloneUrl, work, clones, head);
    const allSeconds = (performance.now() - started) / 1000;
    running = false;
    await sampler;
    loopDelay.disable();

    baseline.sort((a, b) => a - b);
    during.sort((a, b) => a - b);
    const cloneSeconds = durations.map((clone) => clone.seconds).sort((a, b) => a - b);
    return {
      clones,
      files,
      commits: HISTORY + 1,
      work_slots: repositories.work.slots,
      generate_ms: generateMs,
      get_baseline_p50_ms: percentile(baseline, 0.5),
      get_baseline_p99_ms: percentile(baseline, 0.99),
      get_baseline_samples: baseline.length,
      get_during_clones_p50_ms: percentile(during, 0.5),
      get_during_clones_p99_ms: percentile(during, 0.99),
      get_during_clones_max_ms: percentile(during, 1),
      get_during_clones_samples: during.length,
      clones_completed: durations.filter((clone) => clone.ok).length,
      baseline_single_clone_s: single.seconds,
      clone_p50_s: percentile(cloneSeconds, 0.5),
      clone_max_s: percentile(cloneSeconds, 1),
      all_clones_s: Math.round(allSeconds * 100) / 100,
      peak_running: peakRunning,
      peak_queued: peakQueued,
      event_loop_delay_p99_ms: Math.round(loopDelay.percentile(99) / 1e4) / 100,
      event_loop_delay_max_ms: Math.round(loopDelay.max / 1e4) / 100,
    };
  } finally {
    agent.destroy();
  }
}
