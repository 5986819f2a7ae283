import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../../shared/logger.ts';
import type { NewTask, TaskRecord, TasksStore } from '../../storage/types-tasks.ts';

/** What the worker needs of the task store. */
export type TaskWorkerStore = Pick<TasksStore, 'claim' | 'complete' | 'fail' | 'extend' | 'releaseExpired'>;

/**
 * Does the work of one task. Throwing fails the attempt (retried with back-off until
 * max_attempts). A task may run again after a crash, so handlers must be idempotent.
 * `signal` aborts when the worker stops without waiting any longer.
 */
export type TaskHandler = (task: TaskRecord, context: { signal: AbortSignal }) => Promise<void>;

export interface TaskWorkerOptions {
  /** Handlers by task kind; the worker claims only these kinds. */
  handlers: Readonly<Record<string, TaskHandler>>;
  logger: Logger;
  /** Default: host, process id and a random suffix. */
  owner?: string;
  /** Tasks run at once (default 4). */
  concurrency?: number;
  /** Sleep between polls when idle (default 1 s); `wake()` cuts it short. */
  pollIntervalMs?: number;
  /** Lease per claim (default 60 s), renewed every third of it while the handler runs. */
  leaseMs?: number;
  /** Retry n waits min(maxMs, baseMs · 2^(n-1)) (default 1 s, 1 h). */
  backoff?: { baseMs: number; maxMs: number };
  /** How often leases of crashed workers are released (default 30 s). */
  releaseIntervalMs?: number;
  /** Epoch milliseconds (tests move time). */
  clock?: () => number;
}

/** Delay before retry number `attempt` (1 = the first retry). */
export function backoffDelay(attempt: number, backoff: { baseMs: number; maxMs: number }): number {
  return Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, attempt - 1));
}

/**
 * Runs tasks of the durable queue: polls (or is woken in-process), claims up to
 * `concurrency` tasks with a lease, renews leases while handlers run, completes or fails
 * each with exponential back-off, and releases the leases of crashed workers. `stop()`
 * claims nothing more and waits for running handlers.
 */
export class TaskWorker {
  readonly owner: string;
  private readonly running = new Map<number, { done: Promise<void>; controller: AbortController }>();
  /** Tasks run at once. */
  readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly backoff: { baseMs: number; maxMs: number };
  private readonly releaseIntervalMs: number;
  private readonly clock: () => number;
  private loop: Promise<void> | undefined;
  private stopping = false;
  private woken = false;
  private wakeSleeper: (() => void) | undefined;
  private lastRelease = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: TaskWorkerStore,
    private readonly options: TaskWorkerOptions,
  ) {
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.concurrency = options.concurrency ?? 4;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.backoff = options.backoff ?? { baseMs: 1000, maxMs: 60 * 60 * 1000 };
    this.releaseIntervalMs = options.releaseIntervalMs ?? 30_000;
    this.clock = options.clock ?? Date.now;
  }

  /** The task kinds this worker claims (its queues). */
  get kinds(): string[] {
    return Object.keys(this.options.handlers);
  }

  /** Started and not stopped. */
  get started(): boolean {
    return this.loop !== undefined && !this.stopping;
  }

  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.loop = this.run();
  }

  /** Poll now (a task was enqueued in this process, or a handler finished). */
  wake(): void {
    this.woken = true;
    this.wakeSleeper?.();
  }

  /**
   * Claims nothing more and waits for running handlers; after `graceMs` their signals abort
   * and the worker waits for them to return (an abandoned task keeps its lease and runs
   * again elsewhere once the lease ends).
   */
  async stop(graceMs = 30_000): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
    this.loop = undefined;
    const handlers = Promise.all([...this.running.values()].map((entry) => entry.done));
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'grace over'>((resolve) => (timer = setTimeout(() => resolve('grace over'), graceMs)));
    if ((await Promise.race([handlers, graceOver])) === 'grace over') {
      for (const entry of this.running.values()) entry.controller.abort(new Error('task worker stopping'));
      await handlers;
    }
    clearTimeout(timer);
  }

  /** Claims and runs every due task until none is left (one-shot use and tests); does not need start(). */
  async drain(): Promise<void> {
    for (;;) {
      await this.fill();
      if (this.running.size === 0) return;
      await Promise.race([...this.running.values()].map((entry) => entry.done));
    }
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      try {
        await this.releaseExpiredLeases();
        await this.fill();
      } catch (error) {
        this.options.logger.warn({ err: error }, 'task queue poll failed');
      }
      await this.sleep();
    }
  }

  private async releaseExpiredLeases(): Promise<void> {
    const now = this.clock();
    if (now - this.lastRelease < this.releaseIntervalMs) return;
    this.lastRelease = now;
    const released = await this.store.releaseExpired(new Date(now).toISOString());
    if (released > 0) this.options.logger.info({ released }, 'released tasks whose worker stopped holding them');
  }

  /** Claims tasks while slots are free. */
  private async fill(): Promise<void> {
    const kinds = Object.keys(this.options.handlers);
    while (!this.stopping && this.running.size < this.concurrency) {
      const now = this.clock();
      const task = await this.store.claim({
        owner: this.owner,
        now: new Date(now).toISOString(),
        lockedUntil: new Date(now + this.leaseMs).toISOString(),
        kinds,
      });
      if (!task) return;
      this.execute(task);
    }
  }

  private execute(task: TaskRecord): void {
    const controller = new AbortController();
    const renew = setInterval(() => {
      const until = new Date(this.clock() + this.leaseMs).toISOString();
      this.store.extend(task.id, this.owner, until).catch((error: unknown) => this.options.logger.warn({ err: error, task: task.id }, 'could not renew a task lease'));
    }, Math.max(10, Math.floor(this.leaseMs / 3)));
    renew.unref();
    const handler = this.options.handlers[task.kind];
    const done = Promise.resolve()
      .then(() => handler(task, { signal: controller.signal }))
      .then(
        () => this.store.complete(task.id, this.owner),
        (error: unknown) => this.recordFailure(task, error),
      )
      .then(
        () => undefined,
        (error: unknown) => this.options.logger.warn({ err: error, task: task.id }, 'could not record a task outcome'),
      )
      .finally(() => {
        clearInterval(renew);
        this.running.delete(task.id);
        this.wake();
      });
    this.running.set(task.id, { done, controller });
  }

  private async recordFailure(task: TaskRecord, error: unknown): Promise<boolean> {
    const message = error instanceof Error ? error.message : String(error);
    const now = this.clock();
    const retryAt = task.attempts >= task.max_attempts ? null : new Date(now + backoffDelay(task.attempts, this.backoff)).toISOString();
    this.options.logger.warn({ task: task.id, kind: task.kind, attempts: task.attempts, retryAt, error: message }, retryAt ? 'task failed; retrying later' : 'task failed for the last time');
    return this.store.fail(task.id, this.owner, message, retryAt, new Date(now).toISOString());
  }

  private async sleep(): Promise<void> {
    if (this.woken || this.stopping) {
      this.woken = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.pollIntervalMs);
      timer.unref();
      this.wakeSleeper = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wakeSleeper = undefined;
    this.woken = false;
  }
}

/** Enqueues tasks and wakes this process's worker, so they start without waiting for a poll. */
export class TaskQueue {
  constructor(
    private readonly store: Pick<TasksStore, 'enqueue' | 'enqueueAll'>,
    private readonly wake: () => void = () => {},
    private readonly clock: () => number = Date.now,
  ) {}

  async enqueue(task: NewTask): Promise<{ task: TaskRecord; deduplicated: boolean }> {
    const result = await this.store.enqueue(task, new Date(this.clock()).toISOString());
    this.wake();
    return result;
  }

  /** Several tasks in one statement (a task whose dedupe key a pending one has is left out), then one wake. */
  async enqueueAll(tasks: readonly NewTask[]): Promise<void> {
    if (tasks.length === 0) return;
    await this.store.enqueueAll(tasks, new Date(this.clock()).toISOString());
    this.wake();
  }
}
