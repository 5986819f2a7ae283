/**
 * Bounds for waits in tests: a regression that stops something from happening makes the test
 * fail with a message naming what never came, instead of hanging until the runner's timeout.
 * The bounds are generous (a busy machine is slow); they say nothing about speed.
 */
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

export class WaitExpired extends Error {}

/** `promise`'s value, or a failure naming `what` when it has not settled within `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new WaitExpired(`${what}: not done after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `condition` until it holds; fails naming `what` (and `explain()`, when given) after `timeoutMs`. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  what: string,
  options: { timeoutMs?: number; intervalMs?: number; explain?: () => string } = {},
): Promise<void> {
  const { timeoutMs = 10_000, intervalMs = 20, explain } = options;
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new WaitExpired(`timed out after ${timeoutMs} ms waiting for ${what}${explain ? `: ${explain()}` : ''}`);
    await sleep(intervalMs);
  }
}

/**
 * A budget for a loop that must end by itself (drain a queue, poll until told "nothing
 * more"): `next()` fails naming `what` once the loop has turned `turns` times.
 */
export function turnBudget(turns: number, what: string | (() => string)): { next(): void } {
  let used = 0;
  return {
    next() {
      used += 1;
      if (used > turns) throw new WaitExpired(`${typeof what === 'string' ? what : what()}: still going after ${turns} turns`);
    },
  };
}

/**
 * `awaited` (the child's exit, or something it should print), bounded: when it has not
 * settled within `ms`, the child is killed (its process group too when `group`), so the test
 * ends, and the wait fails naming `what`.
 */
export async function withinOrKill<T>(child: ChildProcess, awaited: Promise<T>, ms: number, what: string, options: { group?: boolean } = {}): Promise<T> {
  try {
    return await within(awaited, ms, what);
  } catch (error) {
    if (error instanceof WaitExpired && child.pid !== undefined) {
      try {
        process.kill(options.group ? -child.pid : child.pid, 'SIGKILL');
      } catch {
        // ESRCH: it exited meanwhile.
      }
    }
    throw error;
  }
}
