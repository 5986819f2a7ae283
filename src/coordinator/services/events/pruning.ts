import type { Logger } from '../../../shared/logger.ts';
import type { EventsStore } from '../../../storage/types-events.ts';
import type { NewTask } from '../../../storage/types-tasks.ts';
import { PeriodicSweep } from '../periodic-task.ts';

export const EVENT_PRUNING_TASK = 'event-pruning';

/** GitLab's PruneOldEventsWorker keeps three years of events. */
export const EVENT_RETENTION_DAYS = 3 * 365;

/** Events deleted per statement: a sweep never holds the database for long. */
const BATCH = 1_000;

export interface EventPruningDeps {
  events: Pick<EventsStore, 'deleteOldBatch'>;
  queue: { enqueue(task: NewTask): Promise<unknown> };
  logger: Logger;
  clock?: () => number;
  retentionDays?: number;
}

/**
 * Deletes activity events older than the retention (three years), as GitLab's daily
 * PruneOldEventsWorker does: a timer asks the durable queue for one sweep (one pending at a
 * time across coordinators), and the sweep goes through the events in the order they were
 * recorded, a batch at a time, deleting the old ones, until a batch holds none.
 */
export class EventPruning extends PeriodicSweep {
  private readonly clock: () => number;
  private readonly retentionMs: number;

  constructor(private readonly deps: EventPruningDeps) {
    super(deps, EVENT_PRUNING_TASK, 'the event pruning sweep');
    this.clock = deps.clock ?? Date.now;
    this.retentionMs = (deps.retentionDays ?? EVENT_RETENTION_DAYS) * 86_400_000;
  }

  /** Deletes the events past the retention; answers how many. */
  override async sweep(signal?: AbortSignal): Promise<number> {
    const before = new Date(this.clock() - this.retentionMs).toISOString();
    let removed = 0;
    // Events are recorded in time order: the old ones lead the table, and a batch without any ends the sweep.
    for (let afterId = 0; ; ) {
      signal?.throwIfAborted();
      const { deleted, lastId } = await this.deps.events.deleteOldBatch(before, afterId, BATCH);
      removed += deleted;
      if (lastId === null || deleted === 0) break;
      afterId = lastId;
    }
    if (removed > 0) this.deps.logger.info({ removed, before }, 'removed old activity events');
    return removed;
  }
}
