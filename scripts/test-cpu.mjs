// The CPU the test processes of scripts/test-batches.mjs spend, for finding where a run's time
// goes on a machine whose load makes wall times meaningless. Each process's generated module
// (scripts/test-plan.mjs) measures itself and each of its files with these, and appends one JSON
// line each to the file GANTRY_TEST_CPU_FILE names; the run sums them (summarizeCpu).
import { appendFileSync, existsSync, readFileSync } from 'node:fs';

// Linux counts a process's children in clock ticks of 1/100 s (USER_HZ) on every architecture.
const MS_PER_TICK = 10;

/**
 * CPU milliseconds so far: of this process (all its threads: workers, libuv's pool), and of its
 * children that ended and were waited for, theirs included (git, coordinators, `runner exec`).
 * A child still running is not counted yet; without /proc, children count as 0.
 */
export function cpuNow() {
  const { user, system } = process.cpuUsage();
  let children = 0;
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command's closing parenthesis start at the third (state); cutime and cstime are the 16th and 17th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    children = (Number(fields[13]) + Number(fields[14])) * MS_PER_TICK;
  } catch {
    children = 0;
  }
  return { user: user / 1000, system: system / 1000, children };
}

const spent = (from, to) => ({
  cpu_ms: Math.round(to.user + to.system + to.children - (from.user + from.system + from.children)),
  user_ms: Math.round(to.user - from.user),
  system_ms: Math.round(to.system - from.system),
  children_ms: Math.round(to.children - from.children),
});

const record = (line) => {
  const target = process.env.GANTRY_TEST_CPU_FILE;
  if (target) appendFileSync(target, `${JSON.stringify(line)}\n`);
};

const ZERO = { user: 0, system: 0, children: 0 };

/**
 * Records, when the process exits, its whole CPU, what it spent before its first file (starting
 * Node and node:test's child side, loading the module) and its largest resident size in MiB:
 * `files` are its files' names.
 */
export function measureProcess(files, database) {
  const before = cpuNow();
  // The largest resident size too: the cost of putting more files in one process.
  process.on('exit', () =>
    record({ process: files, database, start_ms: spent(ZERO, before).cpu_ms, ...spent(ZERO, cpuNow()), max_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) }),
  );
}

/** Runs a file's suite and records the CPU it took, its children included (the first file of a process also pays the imports its followers reuse). */
export async function measureFile(file, database, run) {
  const before = cpuNow();
  try {
    await run();
  } finally {
    record({ file, database, ...spent(before, cpuNow()) });
  }
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** The report of a run's CPU records: the sum, the processes' start, and the ten files that took most. */
export function summarizeCpu(cpuFile) {
  if (!existsSync(cpuFile)) return '';
  const lines = readFileSync(cpuFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
  const processes = lines.filter((line) => line.process !== undefined);
  const files = lines.filter((line) => line.file !== undefined).sort((a, b) => b.cpu_ms - a.cpu_ms);
  if (processes.length === 0) return '';
  const sum = (items, key) => items.reduce((total, item) => total + item[key], 0);
  const named = (line) => `${line.file}${line.database === 'postgresql' ? ' [PostgreSQL]' : ''}`;
  return [
    `\nCPU of the ${processes.length} test processes (user + system, their children included): ${seconds(sum(processes, 'cpu_ms'))}` +
      ` (user ${seconds(sum(processes, 'user_ms'))}, system ${seconds(sum(processes, 'system_ms'))}, children ${seconds(sum(processes, 'children_ms'))});` +
      ` before their first file ${seconds(sum(processes, 'start_ms'))}; largest process ${Math.max(...processes.map((line) => line.max_rss_mb))} MiB`,
    `most CPU of ${files.length} file runs:`,
    ...files.slice(0, 10).map((line) => `${seconds(line.cpu_ms).padStart(9)}  ${named(line)}`),
    '',
  ].join('\n');
}
