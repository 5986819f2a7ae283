import type { JobStatus } from '../../../../pipeline/types.ts';
import type { CiJobsStore } from '../../../../storage/types-ci-jobs.ts';

export interface JobWatchOptions {
  /**
   * How often a waiting watch reads the job's status from the database, for changes made by
   * another coordinator (0: never; one coordinator alone learns of every change at commit).
   */
  pollMs?: number;
}

/**
 * Who waits for a running job's status to change: Gantry's runner holds a keep-alive
 * `PUT /jobs/:id` open (`X-Gantry-Job-Watch`) and learns of a cancel the moment it commits,
 * instead of at its next trace update. Processing reports every committed status change
 * (`changed`); with several coordinators, a watch also reads the job every `pollMs`.
 */
export class JobStatusWatch {
  private readonly waiters = new Map<number, Set<() => void>>();
  private closed = false;

  constructor(
    private readonly deps: { jobs: Pick<CiJobsStore, 'findById'> },
    private readonly options: JobWatchOptions = {},
  ) {}

  /** Jobs whose status processing changed (called after the commit). */
  changed(jobIds: Iterable<number>): void {
    for (const jobId of jobIds) {
      const waiting = this.waiters.get(jobId);
      if (!waiting) continue;
      this.waiters.delete(jobId);
      for (const wake of waiting) wake();
    }
  }

  /**
   * Resolves once the job is no longer in `status` (or gone), after `timeoutMs`, when `abort`
   * fires or the watch closes; answers the status it last knew. The job is read once after the
   * wait is registered, so a change committed just before is not missed.
   */
  async waitWhile(jobId: number, status: JobStatus, timeoutMs: number, abort?: AbortSignal): Promise<JobStatus | undefined> {
    const deadline = Date.now() + timeoutMs;
    const pollMs = this.options.pollMs ?? 0;
    let wake = this.register(jobId);
    try {
      for (let read = true; ; read = false) {
        if (read) {
          const current = (await this.deps.jobs.findById(jobId))?.status;
          if (current !== status) return current;
        }
        const remaining = deadline - Date.now();
        if (this.closed || abort?.aborted || remaining <= 0) return status;
        const woken = await wake.until(pollMs > 0 ? Math.min(pollMs, remaining) : remaining, abort);
        if (woken || pollMs > 0) {
          wake.cancel();
          wake = this.register(jobId);
          const current = (await this.deps.jobs.findById(jobId))?.status;
          if (current !== status) return current;
        }
      }
    } finally {
      wake.cancel();
    }
  }

  /** Ends every wait and refuses new ones (the coordinator is closing). */
  close(): void {
    this.closed = true;
    const all = [...this.waiters.values()];
    this.waiters.clear();
    for (const waiting of all) for (const wake of waiting) wake();
  }

  /** How many watches wait (tests, benches). */
  waiting(): number {
    let count = 0;
    for (const waiting of this.waiters.values()) count += waiting.size;
    return count;
  }

  /** A waiter for the job, registered at once; `until` sleeps until it is woken or `ms` pass. */
  private register(jobId: number): { until(ms: number, abort?: AbortSignal): Promise<boolean>; cancel(): void } {
    let woken = false;
    let resolveWake: (() => void) | undefined;
    const wake = () => {
      woken = true;
      resolveWake?.();
    };
    let waiting = this.waiters.get(jobId);
    if (!waiting) {
      waiting = new Set();
      this.waiters.set(jobId, waiting);
    }
    const set = waiting;
    set.add(wake);
    const cancel = () => {
      set.delete(wake);
      if (set.size === 0 && this.waiters.get(jobId) === set) this.waiters.delete(jobId);
    };
    const until = (ms: number, abort?: AbortSignal) =>
      new Promise<boolean>((resolve) => {
        if (woken) return resolve(true);
        const finish = () => {
          clearTimeout(timer);
          abort?.removeEventListener('abort', finish);
          resolveWake = undefined;
          resolve(woken);
        };
        const timer = setTimeout(finish, ms);
        abort?.addEventListener('abort', finish, { once: true });
        resolveWake = finish;
      });
    return { until, cancel };
  }
}
