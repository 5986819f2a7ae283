import type { JobQueueSignal } from '../../../../storage/types-queue-signal.ts';

export type WaitOutcome = 'changed' | 'timeout' | 'closed' | 'aborted';

/**
 * The job queue's value (`X-GitLab-Last-Update`, reference §3.3) and the long polls waiting
 * for it to move. The value is a tick that grows whenever jobs become pending: here (processing
 * reports it after commit) or on another coordinator (the database signal brings its tick;
 * every coordinator keeps the largest it has seen, so they agree once signals arrive). A runner
 * echoing the current value has seen everything; any other value is stale.
 *
 * A tick wakes every waiting poll: each tries its own claim (runners differ in what they may
 * take, so waking only some could leave a job with no taker while a matching runner sleeps).
 */
export class JobQueueWakeups {
  private tick: number;
  private readonly waiters = new Set<(outcome: WaitOutcome) => void>();
  private closed = false;

  constructor(private readonly signal: JobQueueSignal, private readonly clock: () => number = Date.now) {
    this.tick = clock();
    signal.subscribe((event) => {
      // After a gap in listening, signals may have been missed: treat it as a tick.
      this.advanceTo('tick' in event ? event.tick : this.tick + 1);
    });
  }

  /** The value runners receive and echo as `last_update`. */
  current(): string {
    return `lu-${this.tick}`;
  }

  /** Jobs became pending on this coordinator (called after their transaction committed). */
  jobsEnqueued(): void {
    const next = Math.max(this.clock(), this.tick + 1);
    this.advanceTo(next);
    this.signal.publish(next);
  }

  /** Resolves when the value is no longer `since` (at once if it already is not), or after `timeoutMs`. */
  wait(since: string, timeoutMs: number, abort?: AbortSignal): Promise<WaitOutcome> {
    if (this.closed) return Promise.resolve('closed');
    if (abort?.aborted) return Promise.resolve('aborted');
    if (since !== this.current()) return Promise.resolve('changed');
    if (timeoutMs <= 0) return Promise.resolve('timeout');
    return new Promise((resolve) => {
      const finish = (outcome: WaitOutcome) => {
        clearTimeout(timer);
        abort?.removeEventListener('abort', onAbort);
        this.waiters.delete(finish);
        resolve(outcome);
      };
      const onAbort = () => finish('aborted');
      const timer = setTimeout(() => finish('timeout'), timeoutMs);
      abort?.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(finish);
    });
  }

  /** How many polls are waiting (benches and tests). */
  waiting(): number {
    return this.waiters.size;
  }

  /** Ends every waiting poll (they answer 204) and refuses to wait from now on. */
  close(): void {
    this.closed = true;
    this.wakeAll('closed');
  }

  private advanceTo(tick: number): void {
    if (tick <= this.tick) return;
    this.tick = tick;
    this.wakeAll('changed');
  }

  private wakeAll(outcome: WaitOutcome): void {
    for (const finish of [...this.waiters]) finish(outcome);
  }
}
