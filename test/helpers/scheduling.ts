import { readdirSync, readFileSync } from 'node:fs';

/** The scheduling policy in a /proc `stat` file (field 41): 0 normal, 5 SCHED_IDLE. */
function policyIn(statFile: string): number {
  const stat = readFileSync(statFile, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[38]);
}

/** The scheduling policy of a thread of this process. */
export function schedulingPolicy(threadId: number): number {
  return policyIn(`/proc/self/task/${threadId}/stat`);
}

/** The scheduling policy of a process (its main thread). */
export function processPolicy(pid: number): number {
  return policyIn(`/proc/${pid}/stat`);
}

/** The ids of this process's threads running under SCHED_IDLE. */
export function idleThreads(): number[] {
  return readdirSync('/proc/self/task').map(Number).filter((threadId) => {
    try {
      return schedulingPolicy(threadId) === 5;
    } catch {
      return false;
    }
  });
}
