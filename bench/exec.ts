/**
 * `runner exec` against gitlab-ci-local, side by side in one run, printed as one JSON line:
 *  a. a 10-job, 3-stage shell pipeline passing artifacts: our wall time against
 *     gitlab-ci-local's with `--shell-isolation` (every job in its own copy, as ours) and in
 *     its default mode (targets: at most 0.5× the first, no slower than the second);
 *  b. 4 jobs (build → test through needs with an artifact, a second test, deploy) (target:
 *     under 1 s);
 *  c. 2 docker jobs on a local image (gitlab-ci-local with `--pull-policy never` and, as its
 *     `--helper-image`, that image with this machine's rsync, built when missing:
 *     bench/support/docker-side.ts) (target: at most 0.5× gitlab-ci-local); beside each side's
 *     CPU time, the Docker daemon's for its runs (`*_daemon_cpu_ms`, containers included);
 *  r. part a's pipeline in a repository of realistic size, where every job's checkout costs
 *     (2,500 tracked files in 122 directories, about 15 MB: bench/support/large-repository.ts):
 *     ours against gitlab-ci-local with `--shell-isolation` and in its default mode, printed as
 *     part a's figures with the prefix `r_` (no target). Each side's runs are repeated runs in
 *     the same tree, as a user re-running there: a first run, unmeasured but for its wall time
 *     (`r_*_cold_ms`), then the measured ones, with nothing cleaned in between (ours keeps
 *     `.gantry/`, gitlab-ci-local `.gitlab-ci-local/`, with `--shell-isolation` its copies of
 *     the tree among them; the bench removes `.gitlab-ci-local/` after each mode's runs).
 * Median wall time of `--runs` runs each (default 10) with its spread (`*_spread`: the least
 * and the most of those runs, also of the CPU time), the median CPU time of each side (user
 * and system, every process it started included: the machine may be shared, and CPU time
 * says what wall time under load cannot), and our start-up cost (the process's start to the
 * first job's start, `startupMs` of `--json`) apart.
 * `startup_steps` splits the fixed cost by step, CPU time of each alone (median): Node's own
 * start (`node -e ''`), the CLI (`bin/runner --version`), and `bin/runner exec` outside a git
 * repository (the CLI, exec's code loaded, a one-line error); beside them a process starting
 * the compiled coordinator on an empty in-memory database and closing it, with every API route
 * and with `routes: 'local-run'` (exec's), the latter also from exec's schema image (migrated
 * already: `coordinator_local_run_image_cpu_ms`).
 * Needs `bash scripts/build.sh` (bin/runner runs dist/), and gitlab-ci-local 4.73.0 (npm; it
 * needs rsync, here and for part c in its helper image) at GITLAB_CI_LOCAL or on PATH; without
 * it its figures are null.
 * Run: npx tsx bench/exec.ts [--runs N] [--only a,b,c,r,s] [--image gantry/debian-git:bookworm]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { dockerDaemonCpuMs, glciHelperImage } from './support/docker-side.ts';
import { largeRepository } from './support/large-repository.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' }, only: { type: 'string', default: 'a,b,c,r,s' }, image: { type: 'string', default: 'gantry/debian-git:bookworm' } } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${values.runs}`);
const only = new Set(values.only.split(','));
const RUNNER = path.resolve(import.meta.dirname, '../bin/runner');
const SCHEMA_IMAGE = path.resolve(import.meta.dirname, '../dist/exec-schema.sqlite3');
const glci = process.env.GITLAB_CI_LOCAL ?? (spawnSync('which', ['gitlab-ci-local'], { encoding: 'utf8' }).stdout.trim() || null);

function tenJobs(): string {
  const lines = ['stages: [build, test, deploy]'];
  for (let i = 1; i <= 4; i += 1) lines.push(`build-${i}:`, '  stage: build', `  script: mkdir -p out && echo ${i} > out/part-${i}.txt`, '  artifacts:', '    paths: [out/]');
  for (let i = 1; i <= 4; i += 1) lines.push(`test-${i}:`, '  stage: test', `  script: cat out/part-${i}.txt`);
  for (let i = 1; i <= 2; i += 1) lines.push(`deploy-${i}:`, '  stage: deploy', '  script: ls out');
  return `${lines.join('\n')}\n`;
}

const FOUR_JOBS = `stages: [build, test, deploy]
build:
  stage: build
  script: mkdir -p out && echo built > out/app.txt
  artifacts:
    paths: [out/]
test:
  stage: test
  needs: [build]
  script: cat out/app.txt
lint:
  stage: test
  script: echo lint
deploy:
  stage: deploy
  script: echo deploy
`;

const dockerJobs = (image: string): string => `first:
  image: ${image}
  script: echo one > one.txt
  artifacts:
    paths: [one.txt]
second:
  stage: deploy
  image: ${image}
  script: cat one.txt
`;

function repository(ci: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'gantry-bench-exec-'));
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
  writeFileSync(path.join(dir, '.gitlab-ci.yml'), ci);
  mkdirSync(path.join(dir, 'src'));
  writeFileSync(path.join(dir, 'src/app.txt'), 'app\n');
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '--allow-empty', '-m', 'bench'], { cwd: dir });
  execFileSync('git', ['add', '-A'], { cwd: dir });
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'ci'], { cwd: dir });
  return dir;
}

/**
 * CPU time (user + system, ms) of the children this process has waited for, whatever they
 * started and waited for in turn (Linux: `cutime` and `cstime` of /proc/self/stat).
 */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command name: state is field 3, cutime 16 and cstime 17 (in clock ticks).
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS;
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/**
 * Wall and CPU time of one command in `cwd`, and with `daemon` the Docker daemon's CPU time
 * meanwhile (null when it cannot be read); throws when it fails (a figure of a failed run means nothing).
 */
function timed(command: string, args: string[], cwd: string, daemon = false): { ms: number; cpuMs: number; daemonCpuMs: number | null; stdout: string } {
  const daemonBefore = daemon ? dockerDaemonCpuMs() : null;
  const cpuBefore = childrenCpuMs();
  const start = performance.now();
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - start;
  const cpuMs = childrenCpuMs() - cpuBefore;
  const daemonAfter = daemonBefore === null ? null : dockerDaemonCpuMs();
  if (result.status !== 0) throw new Error(`${path.basename(command)} ${args.join(' ')} failed (${result.status}): ${result.stderr.slice(-2000)}`);
  return { ms, cpuMs, daemonCpuMs: daemonBefore === null || daemonAfter === null ? null : daemonAfter - daemonBefore, stdout: result.stdout };
}

/** The median of figures that may be missing: null when any is. */
const medianOrNull = (values: Array<number | null>): number | null => (values.some((value) => value === null) ? null : median(values as number[]));

/** The smallest and the largest of `values` (the spread beside a median). */
const spread = (values: number[]): [number, number] => [Math.round(Math.min(...values)), Math.round(Math.max(...values))];

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return Math.round(sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2);
};

interface Side {
  ours_ms: number;
  ours_cpu_ms: number;
  ours_startup_ms: number;
  [other: string]: number | [number, number] | boolean | null;
}

/** How a side runs: `extra` arguments, the Docker daemon's CPU time read (`daemon`), a first run unmeasured but for its wall time (`warmUp`). */
interface RunOptions {
  extra?: string[];
  daemon?: boolean;
  warmUp?: boolean;
}

/**
 * Our medians: wall time, CPU time (with every process it started) and start-up; with `daemon`,
 * the Docker daemon's CPU time; with `warmUp`, the first run's wall time (`ours_cold_ms`).
 */
function ours(dir: string, { extra = [], daemon = false, warmUp = false }: RunOptions = {}): Side {
  const walls: number[] = [];
  const cpus: number[] = [];
  const startups: number[] = [];
  const daemonCpus: Array<number | null> = [];
  const coldMs = warmUp ? timed(RUNNER, ['exec', '--json', ...extra], dir, daemon).ms : null;
  for (let run = 0; run < runs; run += 1) {
    const { ms, cpuMs, daemonCpuMs, stdout } = timed(RUNNER, ['exec', '--json', ...extra], dir, daemon);
    walls.push(ms);
    cpus.push(cpuMs);
    daemonCpus.push(daemonCpuMs);
    startups.push((JSON.parse(stdout) as { startupMs: number }).startupMs);
  }
  return {
    ours_ms: median(walls), ours_cpu_ms: median(cpus), ours_startup_ms: median(startups),
    ours_ms_spread: spread(walls), ours_cpu_ms_spread: spread(cpus), ours_startup_ms_spread: spread(startups),
    ...(daemon ? { ours_daemon_cpu_ms: medianOrNull(daemonCpus) } : {}),
    ...(coldMs === null ? {} : { ours_cold_ms: Math.round(coldMs) }),
  };
}

/** gitlab-ci-local's failures, by part: its figures are then null. */
const theirFailures: string[] = [];

interface TheirSide {
  ms: number;
  /** The first run's wall time, with `warmUp` (null without). */
  coldMs: number | null;
  cpuMs: number;
  daemonCpuMs: number | null;
  spread: { ms: [number, number]; cpuMs: [number, number] };
}

/**
 * gitlab-ci-local's medians (wall, CPU, with `daemon` the Docker daemon's CPU, with `warmUp` the
 * first run's wall time); null without it, or when it failed (said in `glci_failures`, after
 * `part` when given).
 */
function theirs(dir: string, args: string[], { daemon = false, warmUp = false, part }: RunOptions & { part?: string } = {}): TheirSide | null {
  if (!glci) return null;
  const walls: number[] = [];
  const cpus: number[] = [];
  const daemonCpus: Array<number | null> = [];
  let coldMs: number | null = null;
  try {
    if (warmUp) coldMs = Math.round(timed(glci, args, dir, daemon).ms);
    for (let run = 0; run < runs; run += 1) {
      const { ms, cpuMs, daemonCpuMs } = timed(glci, args, dir, daemon);
      walls.push(ms);
      cpus.push(cpuMs);
      daemonCpus.push(daemonCpuMs);
    }
  } catch (error) {
    theirFailures.push(`${part === undefined ? '' : `${part}: `}${args.join(' ') || '(default)'}: ${failureLine(error instanceof Error ? error.message : String(error))}`);
    return null;
  } finally {
    rmSync(path.join(dir, '.gitlab-ci-local'), { recursive: true, force: true });
  }
  return { ms: median(walls), coldMs, cpuMs: median(cpus), daemonCpuMs: medianOrNull(daemonCpus), spread: { ms: spread(walls), cpuMs: spread(cpus) } };
}

/** The line that says why gitlab-ci-local failed: a job's FAIL first (its warnings about git remotes say "error" too). */
const failureLine = (output: string): string => {
  const lines = output.split('\n');
  return lines.find((line) => /FAIL/.test(line)) ?? lines.find((line) => /rror/.test(line)) ?? 'failed';
};

const ratio = (mine: number, other: { ms: number } | null): number | null => (other === null ? null : Math.round((mine / other.ms) * 100) / 100);
const figures: Record<string, unknown> = { bench: 'exec', runs, gitlab_ci_local: glci, load_before: loadavg()[0] };
const dirs: string[] = [];
try {
  if (only.has('s')) {
    const outside = mkdtempSync(path.join(tmpdir(), 'gantry-bench-exec-outside-'));
    dirs.push(outside);
    const cpuOf = (command: string, args: string[], fails = false): number => {
      const cpus: number[] = [];
      for (let run = 0; run < runs; run += 1) {
        const cpuBefore = childrenCpuMs();
        const result = spawnSync(command, args, { cwd: outside, encoding: 'utf8' });
        if ((result.status !== 0) !== fails) throw new Error(`${command} ${args.join(' ')}: exit ${result.status}: ${result.stderr.slice(-500)}`);
        cpus.push(childrenCpuMs() - cpuBefore);
      }
      return median(cpus);
    };
    // A process that loads the compiled coordinator, starts it on an empty in-memory database and closes it.
    // With `image`, the database starts from the schema image `runner exec` uses (dist/exec-schema.sqlite3).
    const coordinator = (routes: string, image = false): string[] => [
      '--input-type=module', '-e',
      `const { createCoordinator } = await import(${JSON.stringify(path.resolve(import.meta.dirname, '../dist/coordinator/app.js'))});
       const sqliteImage = ${image} ? (await import('node:fs')).readFileSync(${JSON.stringify(SCHEMA_IMAGE)}) : undefined;
       const c = await createCoordinator({ dataDir: ${JSON.stringify(path.join(outside, 'data'))}, databaseUrl: ':memory:', sqliteImage, routes: '${routes}' });
       await c.close();`,
    ];
    figures.startup_steps = {
      node_cpu_ms: cpuOf(process.execPath, ['-e', '']),
      cli_cpu_ms: cpuOf(RUNNER, ['--version']),
      exec_load_cpu_ms: cpuOf(RUNNER, ['exec'], true),
      coordinator_all_routes_cpu_ms: cpuOf(process.execPath, coordinator('all')),
      coordinator_local_run_cpu_ms: cpuOf(process.execPath, coordinator('local-run')),
      coordinator_local_run_image_cpu_ms: cpuOf(process.execPath, coordinator('local-run', true)),
    };
  }
  if (only.has('a')) {
    const dir = repository(tenJobs());
    dirs.push(dir);
    const side = ours(dir);
    const isolated = theirs(dir, ['--shell-isolation']);
    const plain = theirs(dir, []);
    figures.a_ten_jobs = {
      ...side,
      glci_isolated_ms: isolated?.ms ?? null, glci_isolated_cpu_ms: isolated?.cpuMs ?? null, glci_isolated_spread: isolated?.spread ?? null,
      glci_default_ms: plain?.ms ?? null, glci_default_cpu_ms: plain?.cpuMs ?? null, glci_default_spread: plain?.spread ?? null,
      ratio_to_isolated: ratio(side.ours_ms, isolated), ratio_to_default: ratio(side.ours_ms, plain),
      target_met: isolated === null || plain === null ? null : side.ours_ms <= isolated.ms * 0.5 && side.ours_ms <= plain.ms,
    };
  }
  if (only.has('b')) {
    const dir = repository(FOUR_JOBS);
    dirs.push(dir);
    const side = ours(dir);
    const plain = theirs(dir, []);
    const isolated = theirs(dir, ['--shell-isolation']);
    figures.b_four_jobs = {
      ...side,
      glci_default_ms: plain?.ms ?? null, glci_default_cpu_ms: plain?.cpuMs ?? null, glci_default_spread: plain?.spread ?? null,
      glci_isolated_ms: isolated?.ms ?? null, glci_isolated_cpu_ms: isolated?.cpuMs ?? null, glci_isolated_spread: isolated?.spread ?? null,
      target_met: side.ours_ms < 1000,
    };
  }
  if (only.has('c')) {
    const dir = repository(dockerJobs(values.image));
    dirs.push(dir);
    const side = ours(dir, { extra: ['--executor', 'docker'], daemon: true });
    let helper: string | null = null;
    try {
      helper = glci ? glciHelperImage(values.image) : null;
    } catch (error) {
      theirFailures.push(`--helper-image: ${error instanceof Error ? error.message : String(error)}`);
    }
    const other = helper === null ? null : theirs(dir, ['--pull-policy', 'never', '--helper-image', helper], { daemon: true });
    figures.c_docker = {
      ...side, glci_helper_image: helper,
      glci_ms: other?.ms ?? null, glci_cpu_ms: other?.cpuMs ?? null, glci_daemon_cpu_ms: other?.daemonCpuMs ?? null, glci_spread: other?.spread ?? null,
      ratio: ratio(side.ours_ms, other), target_met: other === null ? null : side.ours_ms <= other.ms * 0.5,
    };
  }
  if (only.has('r')) {
    const { dir, ...shape } = largeRepository(tenJobs());
    dirs.push(dir);
    // Each side's runs follow one another in this tree, a first one unmeasured (the header says why).
    const side = ours(dir, { warmUp: true });
    const isolated = theirs(dir, ['--shell-isolation'], { warmUp: true, part: 'r' });
    const plain = theirs(dir, [], { warmUp: true, part: 'r' });
    const mine = Object.fromEntries(Object.entries(side).map(([name, value]) => [`r_${name}`, value]));
    Object.assign(figures, {
      r_repository: shape, ...mine,
      r_glci_isolated_ms: isolated?.ms ?? null, r_glci_isolated_cold_ms: isolated?.coldMs ?? null,
      r_glci_isolated_cpu_ms: isolated?.cpuMs ?? null, r_glci_isolated_spread: isolated?.spread ?? null,
      r_glci_default_ms: plain?.ms ?? null, r_glci_default_cold_ms: plain?.coldMs ?? null,
      r_glci_default_cpu_ms: plain?.cpuMs ?? null, r_glci_default_spread: plain?.spread ?? null,
      r_ratio_to_isolated: ratio(side.ours_ms, isolated), r_ratio_to_default: ratio(side.ours_ms, plain),
    });
  }
} finally {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
if (theirFailures.length > 0) figures.glci_failures = theirFailures;
figures.load_after = loadavg()[0];
process.stdout.write(`${JSON.stringify(figures)}\n`);
