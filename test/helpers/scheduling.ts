import { readdirSync, readFileSync } from 'node:fs';

/** The scheduling policy of a thread of this process (/proc's stat, field 41): 0 normal, 5 SCHED_IDLE. */
export function schedulingPolicy(threadId: number): number {
  const stat = readFileSync(`/proc/self/task/${threadId}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[38]);
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
