import { accessDenied } from '../../../shared/errors.ts';
import type { InstancesStore } from '../../../storage/types-instances.ts';
import type { TasksStore } from '../../../storage/types-tasks.ts';
import type { Actor, Permissions } from '../access/permissions.ts';

/** One task kind as a queue: tasks due and waiting, and how long the oldest of them has waited. */
export interface QueueReading {
  name: string;
  backlog: number;
  latencySeconds: number;
}

/** One coordinator process of the database, as a worker of the task queue. */
export interface ProcessReading {
  hostname: string;
  pid: number;
  instanceId: string;
  startedAt: string;
  queues: string[];
  concurrency: number;
  busy: number;
}

export interface JobTotals {
  processed: number;
  failed: number;
  /** Tasks due and waiting, all kinds together. */
  enqueued: number;
  /** Tasks that ran out of attempts and wait for a person. */
  dead: number;
}

export interface JobQueueReading {
  queues: QueueReading[];
  processes: ProcessReading[];
  jobs: JobTotals;
}

/** What the service needs to know of one of this process's task workers. */
export interface TaskWorkerFacts {
  kinds: readonly string[];
  concurrency: number;
  started: boolean;
}

export interface JobQueueMetricsDeps {
  tasks: Pick<TasksStore, 'counts' | 'totals' | 'runningByOwner'>;
  instances: Pick<InstancesStore, 'live'>;
  permissions: Pick<Permissions, 'isAdministrator'>;
  /** This coordinator's id (among the live instances). */
  instanceId: string;
  /** This process's task workers (the CI worker, the webhook delivery worker): together its queues. */
  workers: readonly TaskWorkerFacts[];
  /** A coordinator whose heartbeat is older than this is not listed among the processes. */
  staleAfterMs: number;
  clock?: () => number;
}

/**
 * The durable task queue seen as GitLab's background-job metrics (administrators only): each
 * task kind a queue, each live coordinator a process, and the totals since the installation
 * began. Four statements per reading, whatever the size of the queue.
 */
export class JobQueueMetrics {
  private readonly clock: () => number;

  constructor(private readonly deps: JobQueueMetricsDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  async read(actor: Actor): Promise<JobQueueReading> {
    if (!this.deps.permissions.isAdministrator(actor)) throw accessDenied();
    const now = this.clock();
    const [counts, totals, running, live] = await Promise.all([
      this.deps.tasks.counts(new Date(now).toISOString()),
      this.deps.tasks.totals(),
      this.deps.tasks.runningByOwner(),
      this.deps.instances.live(this.deps.staleAfterMs),
    ]);
    const { workers, instanceId } = this.deps;
    const kinds = [...new Set(workers.flatMap((worker) => worker.kinds))].sort();
    const concurrency = sum(workers.map((worker) => worker.concurrency));
    const ownConcurrency = sum(workers.map((worker) => (worker.started ? worker.concurrency : 0)));
    const byKind = new Map(counts.map((kind) => [kind.kind, kind]));
    const names = [...new Set([...kinds, ...byKind.keys()])].sort();
    const queues = names.map((name) => {
      const kind = byKind.get(name);
      return { name, backlog: kind?.ready ?? 0, latencySeconds: secondsSince(kind?.oldest_ready_at ?? null, now) };
    });
    // Every coordinator runs the same workers; of the others, only their busy count is known.
    const processes = live.map((instance) => ({
      hostname: instance.hostname,
      pid: instance.pid,
      instanceId: instance.id,
      startedAt: instance.started_at,
      queues: kinds,
      concurrency: instance.id === instanceId ? ownConcurrency : concurrency,
      busy: running.get(instance.id) ?? 0,
    }));
    const jobs = {
      processed: totals.reduce((sum, kind) => sum + kind.processed, 0),
      failed: totals.reduce((sum, kind) => sum + kind.failed, 0),
      enqueued: queues.reduce((sum, queue) => sum + queue.backlog, 0),
      dead: counts.reduce((sum, kind) => sum + kind.dead, 0),
    };
    return { queues, processes, jobs };
  }
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function secondsSince(instant: string | null, now: number): number {
  if (instant === null) return 0;
  const at = Date.parse(instant);
  return Number.isNaN(at) ? 0 : Math.max(0, (now - at) / 1000);
}
