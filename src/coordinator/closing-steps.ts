import type { Logger } from '../shared/logger.ts';

/** How long one step of closing may take before the log says which one it is waiting on. */
const SLOW_STEP_MS = 2_000;

/** Awaits one named step of closing (the task worker, the database, ...). */
export type ClosingStep = <T>(name: string, work: () => Promise<T>) => Promise<T>;

/**
 * Steps that log a warning naming themselves when they take longer than `slowAfterMs`, and
 * again with their time once done: an operator whose coordinator is slow to stop sees what it
 * waits on. The timer is unreferenced and cleared, so it costs nothing else.
 */
export function closingSteps(logger: Logger, slowAfterMs = SLOW_STEP_MS): ClosingStep {
  return async (name, work) => {
    const started = Date.now();
    const timer = setTimeout(() => logger.warn({ step: name }, `closing: still waiting for ${name} after ${slowAfterMs} ms`), slowAfterMs);
    timer.unref();
    try {
      return await work();
    } finally {
      clearTimeout(timer);
      const tookMs = Date.now() - started;
      if (tookMs >= slowAfterMs) logger.warn({ step: name, tookMs }, `closing: ${name} took ${tookMs} ms`);
    }
  };
}
