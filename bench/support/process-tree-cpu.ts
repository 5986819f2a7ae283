/**
 * CPU time of this process and every process below it, read from /proc: the coordinator's own
 * threads, the git spawner helper and the git processes it starts (live ones read directly,
 * exited ones through their parent's cutime/cstime). Linux only; 10 ms clock ticks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const TICKS_PER_SECOND = 100;

/** utime, stime, cutime and cstime of a process, in clock ticks (fields 14 to 17 of /proc/<pid>/stat). */
function ticksOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index] ?? 0), 0);
}

function childrenOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((task) => {
    const listed = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
    return listed === '' ? [] : listed.split(' ').map(Number);
  });
}

function treeTicks(pid: number): number {
  try {
    return ticksOf(pid) + childrenOf(pid).reduce((sum, child) => sum + treeTicks(child), 0);
  } catch {
    return 0; // exited while being read
  }
}

/** CPU milliseconds used so far by this process tree. */
export function processTreeCpuMs(): number {
  return treeTicks(process.pid) * (1000 / TICKS_PER_SECOND);
}

/** CPU milliseconds used so far by the process tree under `pid` (itself included). */
export function treeCpuMsOf(pid: number): number {
  return treeTicks(pid) * (1000 / TICKS_PER_SECOND);
}

export interface TreeSample {
  ms: number;
  /** The whole process tree's CPU (git included). */
  cpuMs: number;
  /** This process's own CPU (process.cpuUsage, microsecond resolution): the coordinator and the client in it. */
  ownCpuMs: number;
}

/** Wall time and CPU time of `work`. */
export async function sampleTree(work: () => Promise<unknown>): Promise<TreeSample> {
  const treeBefore = processTreeCpuMs();
  const ownBefore = process.cpuUsage();
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  const own = process.cpuUsage(ownBefore);
  return { ms, cpuMs: processTreeCpuMs() - treeBefore, ownCpuMs: (own.user + own.system) / 1000 };
}

/**
 * CPU milliseconds of each thread of this process so far, and the milliseconds it waited, ready
 * to run, for a core (`/proc/self/task/<tid>/schedstat`, nanoseconds), by thread id; name from `comm`.
 */
export function threadCpuMs(): Map<number, { name: string; ms: number; waitedMs: number }> {
  const threads = new Map<number, { name: string; ms: number; waitedMs: number }>();
  for (const task of readdirSync('/proc/self/task')) {
    try {
      const [ranNs, waitedNs] = readFileSync(`/proc/self/task/${task}/schedstat`, 'utf8').split(' ').map(Number);
      threads.set(Number(task), { name: readFileSync(`/proc/self/task/${task}/comm`, 'utf8').trim(), ms: ranNs! / 1e6, waitedMs: waitedNs! / 1e6 });
    } catch {
      // ended while being read
    }
  }
  return threads;
}
