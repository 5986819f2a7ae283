import type { Logger } from '../../shared/logger.ts';
import type { NewTask } from '../../storage/types-tasks.ts';

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
