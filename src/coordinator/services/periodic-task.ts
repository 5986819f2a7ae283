import type { Logger } from '../../shared/logger.ts';
import type { NewTask } from '../../storage/types-tasks.ts';
import type { TaskHandler } from './task-queue.ts';

export interface PeriodicTaskDeps {
  queue: { enqueue(task: NewTask): Promise<unknown> };
  logger: Logger;
}

/**
 * Asks the durable task queue for one task of `kind` now and then every interval. The task's
 * kind is its dedupe key, so however many coordinators ask, one is pending at a time; a failed
 * request is logged and the next tick asks again.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;

  /** `what` names the task in the log line of a failed request. */
  constructor(private readonly deps: PeriodicTaskDeps, private readonly kind: string, private readonly what: string) {}

  start(intervalMs: number): void {
    if (this.timer) return;
    const request = (): void => {
      this.deps.queue.enqueue({ kind: this.kind, dedupeKey: this.kind, maxAttempts: 3 }).catch((error: unknown) => {
        this.deps.logger.warn({ err: error }, `could not enqueue ${this.what}`);
      });
    };
    request();
    this.timer = setInterval(request, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/**
 * A sweep run as a periodic task: `sweep` does the work (the queue's handler for `kind` calls
 * it), and `start` asks the queue for one now and then every interval.
 */
export abstract class PeriodicSweep {
  private readonly schedule: PeriodicTask;

  /** `what` names the sweep in the log line of a failed request. */
  protected constructor(deps: PeriodicTaskDeps, kind: string, what: string) {
    this.schedule = new PeriodicTask(deps, kind, what);
  }

  /** Does one sweep; answers how many records it settled. */
  abstract sweep(signal?: AbortSignal): Promise<number>;

  handler(): TaskHandler {
    return async (_task, { signal }) => {
      await this.sweep(signal);
    };
  }

  /** Asks for a sweep now and then every `intervalMs`. */
  start(intervalMs: number): void {
    this.schedule.start(intervalMs);
  }

  stop(): void {
    this.schedule.stop();
  }
}
