/** The durable task queue: work that must happen later, or again after a crash. */

export type TaskStatus = 'pending' | 'running' | 'dead';

export interface TaskRecord {
  id: number;
  kind: string;
  payload: unknown;
  /** `pending` waits for run_at; `running` is leased until locked_until; `dead` ran out of attempts. */
  status: TaskStatus;
  run_at: string;
  /** Claims so far, the current one included. */
  attempts: number;
  max_attempts: number;
  locked_by: string | null;
  locked_until: string | null;
  last_error: string | null;
  /** At most one pending task per key. */
  dedupe_key: string | null;
  created_at: string;
  updated_at: string;
}

export interface NewTask {
  kind: string;
  payload?: unknown;
  /** Default: now. */
  runAt?: string;
  /** Default 5. */
  maxAttempts?: number;
  /** While a pending task has this key, enqueueing another is a no-op answering the pending one. */
  dedupeKey?: string;
}

export interface TaskClaim {
  /** Worker identity, kept in locked_by. */
  owner: string;
  now: string;
  /** The lease ends then; an unfinished task is released after it. */
  lockedUntil: string;
  /** Only these kinds (all when absent). */
  kinds?: readonly string[];
}

export interface TaskKindCounts {
  kind: string;
  /** Pending and due. */
  ready: number;
  /** Pending, due later. */
  scheduled: number;
  running: number;
  dead: number;
  /** Pending or running tasks that failed at least once. */
  retrying: number;
  /** run_at of the oldest due pending task. */
  oldest_ready_at: string | null;
}

/** Attempts that ended, per kind, since the installation began (Sidekiq's processed and failed). */
export interface TaskKindTotals {
  kind: string;
  /** Attempts that ended: completed, or failed. */
  processed: number;
  failed: number;
}

export interface TasksStore {
  /** Inserts the task, unless a pending task has the same dedupe key: then answers that one with `deduplicated`. */
  enqueue(task: NewTask, now: string): Promise<{ task: TaskRecord; deduplicated: boolean }>;
  /** Inserts the tasks in one statement, each unless a pending task has its dedupe key. */
  enqueueAll(tasks: readonly NewTask[], now: string): Promise<void>;
  /** Atomically leases the due pending task with the earliest run_at (`FOR UPDATE SKIP LOCKED` on PostgreSQL). */
  claim(claim: TaskClaim): Promise<TaskRecord | undefined>;
  /** Removes a finished task and counts the attempt processed; false when the caller no longer holds its lease. */
  complete(id: number, owner: string): Promise<boolean>;
  /**
   * Records a failure of a leased task: pending again at `retryAt`, or `dead` when `retryAt`
   * is null; the attempt counts processed and failed. False when the caller no longer holds the lease.
   */
  fail(id: number, owner: string, error: string, retryAt: string | null, now: string): Promise<boolean>;
  /** Keeps the lease of a long task. */
  extend(id: number, owner: string, lockedUntil: string): Promise<boolean>;
  /**
   * Tasks whose lease ended (their worker crashed or hung) become pending again, or dead after
   * their last attempt; one with a pending twin (same dedupe key) is dropped. Answers how many.
   */
  releaseExpired(now: string): Promise<number>;
  findById(id: number): Promise<TaskRecord | undefined>;
  /** The earliest run_at of a pending task, for a worker's sleep. */
  nextRunAt(kinds?: readonly string[]): Promise<string | undefined>;
  counts(now: string): Promise<TaskKindCounts[]>;
  /** Every kind's totals (kinds never attempted are absent). */
  totals(): Promise<TaskKindTotals[]>;
  /** Running tasks per lease owner (a coordinator instance's id). */
  runningByOwner(): Promise<Map<string, number>>;
  /** Dead tasks, newest first. */
  listDead(limit: number): Promise<TaskRecord[]>;
}
