import type { Logger } from '../../../shared/logger.ts';
import type { EnvironmentsStore } from '../../../storage/types-environments.ts';
import type { NewTask } from '../../../storage/types-tasks.ts';
import { PeriodicSweep } from '../periodic-task.ts';
import type { EnvironmentStopAction } from './environment-stop.ts';

export const ENVIRONMENT_AUTO_STOP_TASK = 'environment-auto-stop';

/** Environments stopped per query. */
const BATCH = 100;

export interface EnvironmentAutoStopDeps {
  environments: Pick<EnvironmentsStore, 'listAutoStopDue' | 'stopIfDue'>;
  stopAction: Pick<EnvironmentStopAction, 'play'>;
  queue: { enqueue(task: NewTask): Promise<unknown> };
  logger: Logger;
  clock?: () => number;
}

/**
 * Stops the available environments whose `auto_stop_at` has passed (set from `auto_stop_in`),
 * as GitLab's `Environments::AutoStopCronWorker` does: each is marked stopped (which clears the
 * time; one a deployment renewed meanwhile stays) and its `on_stop` job, if one waits to be
 * played, is played as that job's user. A timer enqueues one sweep task on the durable queue
 * (one pending at a time across coordinators, by its dedupe key).
 */
export class EnvironmentAutoStop extends PeriodicSweep {
  private readonly clock: () => number;

  constructor(private readonly deps: EnvironmentAutoStopDeps) {
    super(deps, ENVIRONMENT_AUTO_STOP_TASK, 'the environment auto-stop sweep');
    this.clock = deps.clock ?? Date.now;
  }

  /** Stops every environment due; answers how many. */
  override async sweep(signal?: AbortSignal): Promise<number> {
    const { environments, stopAction } = this.deps;
    let stopped = 0;
    for (;;) {
      signal?.throwIfAborted();
      const now = new Date(this.clock()).toISOString();
      const due = await environments.listAutoStopDue(now, BATCH);
      for (const environment of due) {
        const stoppedNow = await environments.stopIfDue(environment.id, now);
        if (!stoppedNow) continue;
        await stopAction.play(stoppedNow, null);
        stopped++;
      }
      if (due.length < BATCH) break;
    }
    if (stopped > 0) this.deps.logger.info({ stopped }, 'stopped environments past their auto-stop time');
    return stopped;
  }
}
