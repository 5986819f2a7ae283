import type { CoordinatorContext } from './context.ts';
import { cleanUpAfterDeadInstances } from './repository-reconciliation.ts';

/**
 * What every coordinator sharing a database does now and then, besides its heartbeat: clean
 * up after coordinators that died (their heartbeat went stale; the first to notice does it)
 * and forget the ended windows of the shared throttle counters. Not needed with one process
 * (SQLite), where start-up repair already finds every earlier process dead.
 */
export class InstanceUpkeep {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private busy = false;

  constructor(
    private readonly context: CoordinatorContext,
    /** Default: the instance's (half the time after which a coordinator counts as dead, unless set). */
    private readonly intervalMs = context.instance.upkeepIntervalMs,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.busy) return;
      this.busy = true;
      this.running = this.runOnce().finally(() => {
        this.busy = false;
      });
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One round (tests call it instead of waiting); failures are logged, never thrown. */
  async runOnce(): Promise<void> {
    const { logger, stores } = this.context;
    try {
      await cleanUpAfterDeadInstances(this.context);
      await stores.throttleCounters.deleteEnded();
    } catch (error) {
      logger.error({ err: error }, 'cleaning up after dead coordinators failed; the next round tries again');
    }
  }
}
