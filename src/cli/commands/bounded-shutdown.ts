import type { Coordinator } from '../../coordinator/app.ts';
import { DEFAULT_SHUTDOWN_GRACE_MS } from '../../coordinator/options.ts';
import type { Logger } from '../../shared/logger.ts';

export interface ShutdownBound {
  /** How long closing may take before the process gives up on it and exits with 1. */
  closeBoundMs: number;
  /** How long a closed process may stay alive (something a library left running holds it) before it exits anyway. */
  lingerMs: number;
  logger: Logger;
  exit: (code: number) => void;
}

/**
 * Closes within a bound, so a service manager's stop never waits on a step that hangs: when
 * `close` has not finished after `closeBoundMs`, or the process is still alive `lingerMs` after
 * it finished, the process exits, and the log names what still held it (Node's active
 * resources). Both timers are unreferenced: a process that ends on its own ends at once.
 */
export async function closeWithinBound(close: () => Promise<void>, bound: ShutdownBound): Promise<void> {
  const watchdog = setTimeout(() => {
    bound.logger.error({ stillOpen: process.getActiveResourcesInfo() }, `closing did not finish within ${bound.closeBoundMs} ms; exiting`);
    bound.exit(1);
  }, bound.closeBoundMs);
  watchdog.unref();
  try {
    await close();
  } finally {
    clearTimeout(watchdog);
  }
  setTimeout(() => {
    bound.logger.warn({ stillOpen: process.getActiveResourcesInfo() }, `closed, but the process was still held ${bound.lingerMs} ms later; exiting`);
    bound.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  }, bound.lingerMs).unref();
}

/** How long a closed command's process may stay alive before it exits anyway. */
export const CLOSED_PROCESS_LINGER_MS = 5_000;

/** The bound of a coordinator's close: twice its grace (the backstop that closes every connection) and 10 s for storage. */
export function coordinatorCloseBoundMs(shutdownGraceMs = DEFAULT_SHUTDOWN_GRACE_MS): number {
  return 2 * shutdownGraceMs + 10_000;
}

/** A command's coordinator closed within coordinatorCloseBoundMs, its process ended by process.exit past the bounds. */
export function closeCoordinatorWithinBound(coordinator: Pick<Coordinator, 'close'>, shutdownGraceMs: number | undefined, logger: Logger): Promise<void> {
  return closeWithinBound(() => coordinator.close(), {
    closeBoundMs: coordinatorCloseBoundMs(shutdownGraceMs),
    lingerMs: CLOSED_PROCESS_LINGER_MS,
    logger,
    exit: (code) => process.exit(code),
  });
}
