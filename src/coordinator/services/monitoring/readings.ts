import type { MonitoringStore } from '../../../storage/types-monitoring.ts';
import type { TaskKindCounts, TasksStore } from '../../../storage/types-tasks.ts';
import { ONLINE_WINDOW_MS, type RunnerStatus } from '../ci/runners/rules.ts';

/** What /-/metrics reports of the database and of this coordinator's long polls, read at scrape time. */
export interface MonitoringReadings {
  /** Builds pending (the runner queue's depth), running and waiting for a resource, on every coordinator of the database. */
  jobs: { pending: number; running: number; waitingForResource: number; oldestPendingSeconds: number };
  runners: ReadonlyArray<{ runnerType: string; status: RunnerStatus; count: number }>;
  tasks: ReadonlyArray<TaskKindCounts & { oldestReadySeconds: number }>;
  /** `POST /jobs/request` calls this coordinator holds open. */
  jobRequestWaiters: number;
}

export interface ReadingSources {
  store: Pick<MonitoringStore, 'ciJobCounts' | 'runnerContactCounts'>;
  tasks: Pick<TasksStore, 'counts'>;
  jobRequestWaiters: () => number;
  clock?: () => number;
}

/** Reads the figures behind the gauges of /-/metrics (a handful of indexed counts per scrape). */
export class MonitoringReader {
  private readonly clock: () => number;

  constructor(private readonly sources: ReadingSources) {
    this.clock = sources.clock ?? Date.now;
  }

  async read(): Promise<MonitoringReadings> {
    const now = this.clock();
    const [jobs, runners, tasks] = await Promise.all([
      this.sources.store.ciJobCounts(),
      this.sources.store.runnerContactCounts(new Date(now - ONLINE_WINDOW_MS).toISOString()),
      this.sources.tasks.counts(new Date(now).toISOString()),
    ]);
    const byStatus = new Map<string, { runnerType: string; status: RunnerStatus; count: number }>();
    for (const row of runners) {
      // Ci::Runner#status as the runners API shows it (services/ci/runners/rules.ts).
      const status: RunnerStatus = row.contact === 'never' ? 'not_connected' : !row.active ? 'paused' : row.contact === 'recent' ? 'online' : 'offline';
      const key = `${row.runner_type}\n${status}`;
      const entry = byStatus.get(key) ?? { runnerType: row.runner_type, status, count: 0 };
      entry.count += row.count;
      byStatus.set(key, entry);
    }
    return {
      jobs: { pending: jobs.pending, running: jobs.running, waitingForResource: jobs.waitingForResource, oldestPendingSeconds: secondsSince(jobs.oldestPendingQueuedAt, now) },
      runners: [...byStatus.values()],
      tasks: tasks.map((kind) => ({ ...kind, oldestReadySeconds: secondsSince(kind.oldest_ready_at, now) })),
      jobRequestWaiters: this.sources.jobRequestWaiters(),
    };
  }
}

function secondsSince(instant: string | null, now: number): number {
  if (instant === null) return 0;
  const at = Date.parse(instant);
  return Number.isNaN(at) ? 0 : Math.max(0, (now - at) / 1000);
}
