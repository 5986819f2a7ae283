import type { JobStatus } from '../../../../pipeline/types.ts';
import type { CiJobsStore, JobRecord } from '../../../../storage/types-ci-jobs.ts';
import { appendRefusal } from '../../../../storage/trace-offsets.ts';
import type { TraceStore } from '../../../../storage/types-blobs.ts';
import type { JobOutcomes } from './job-outcomes.ts';
import { JobTokenAccess, type JobAuthentication } from './job-token-access.ts';

/** Defaults of the trace side of the runner protocol. */
export const TRACE_DEFAULTS = {
  /** GitLab's default `ci_jobs_trace_size_limit` (100 MB). */
  maxBytes: 100 * 1024 * 1024,
  /**
   * `X-GitLab-Trace-Update-Interval` while a job runs and nobody reads its log. GitLab answers
   * 30 s (60 s later), so a stock gitlab-runner learns of a cancel up to that late; 3 s (its
   * own default, and GitLab's while the log is watched) bounds that at 3 s for a job that
   * writes, at the cost of at most one PATCH every 3 s per writing job (bench/cancel.ts).
   */
  intervalSeconds: 3,
  /** ... and while someone does (GitLab: 3 s, for 10 s after each read). */
  watchedIntervalSeconds: 3,
  watchTtlMs: 10_000,
} as const;

export interface TraceLimits {
  /** Largest trace kept per job; a patch past it fails the job with `trace_size_exceeded`. */
  maxBytes?: number;
  intervalSeconds?: number;
  watchedIntervalSeconds?: number;
}

/** What a trace PATCH comes to (reference/runner-protocol.md §5.2). */
export type TracePatchOutcome =
  | Exclude<JobAuthentication, { kind: 'ok' }>
  /** No (or no readable) `Content-Range` start. */
  | { kind: 'bad-range' }
  | { kind: 'range-mismatch'; size: number }
  | { kind: 'appended'; size: number; status: JobStatus; intervalSeconds: number };

export interface JobTracesDeps {
  jobs: Pick<CiJobsStore, 'findById' | 'findByTokenDigest' | 'update'>;
  traces: Pick<TraceStore, 'append' | 'size'>;
  outcomes: Pick<JobOutcomes, 'fail'>;
  watch: TraceWatch;
  limits?: TraceLimits;
  /** Epoch milliseconds. */
  clock?: () => number;
}

/** A running job's updated_at is refreshed at most this often by patches (the stuck sweeps read it). */
const TOUCH_EVERY_MS = 5_000;

/**
 * `PATCH /jobs/:id/trace`: appends the runner's bytes at their offset. The offset is the
 * start of `Content-Range`; its end is ignored (runners disagree on inclusive ends, GitLab
 * computes start + length too). A patch not at the stored size writes nothing and answers
 * the stored size (416), from which the runner resends.
 */
export class JobTraces {
  private readonly clock: () => number;
  private readonly tokens: JobTokenAccess;

  constructor(private readonly deps: JobTracesDeps) {
    this.clock = deps.clock ?? Date.now;
    this.tokens = new JobTokenAccess({ jobs: deps.jobs });
  }

  get maxBytes(): number {
    return this.deps.limits?.maxBytes ?? TRACE_DEFAULTS.maxBytes;
  }

  /** `start`: the offset of `bytes` (NaN when the request had no readable Content-Range). */
  async patch(jobId: number, token: string | undefined, start: number, bytes: Uint8Array): Promise<TracePatchOutcome> {
    const auth = await this.tokens.updatableJob(jobId, token);
    if (auth.kind !== 'ok') return auth;
    const job = auth.job;
    if (!Number.isSafeInteger(start) || start < 0) return { kind: 'bad-range' };
    if (start + bytes.length > this.maxBytes) {
      // Past the limit only at the end of the trace: elsewhere the runner resends first.
      const refused = appendRefusal(start, await this.deps.traces.size(job.id));
      if (refused) return { kind: 'range-mismatch', size: refused.conflict };
      const status = await this.deps.outcomes.fail(job, 'trace_size_exceeded');
      return { kind: 'not-running', status };
    }
    const result = await this.deps.traces.append(job.id, start, bytes);
    if ('conflict' in result) return { kind: 'range-mismatch', size: result.conflict };
    await this.touch(job);
    return { kind: 'appended', size: result.size, status: job.status, intervalSeconds: this.intervalSeconds(job.id) };
  }

  /** Seconds the runner should wait between updates: short while someone reads the log. */
  intervalSeconds(jobId: number): number {
    const limits = this.deps.limits ?? {};
    return this.deps.watch.isWatched(jobId)
      ? (limits.watchedIntervalSeconds ?? TRACE_DEFAULTS.watchedIntervalSeconds)
      : (limits.intervalSeconds ?? TRACE_DEFAULTS.intervalSeconds);
  }

  private async touch(job: JobRecord): Promise<void> {
    const now = this.clock();
    // The first patch after the claim is always written: it acknowledges the hand-out (stale-jobs.ts).
    const acknowledged = job.updated_at !== job.started_at;
    if (acknowledged && now - Date.parse(job.updated_at) < TOUCH_EVERY_MS) return;
    await this.deps.jobs.update(job.id, { updated_at: new Date(now).toISOString() });
  }
}

/**
 * Which jobs' logs someone read lately (GitLab's trace watch flag, 10 s). In memory: with
 * several coordinators a reader on another instance leaves the interval long, which only
 * delays the log, never loses it.
 */
export class TraceWatch {
  private readonly until = new Map<number, number>();

  constructor(
    private readonly ttlMs: number = TRACE_DEFAULTS.watchTtlMs,
    private readonly clock: () => number = Date.now,
  ) {}

  watched(jobId: number): void {
    const now = this.clock();
    this.until.set(jobId, now + this.ttlMs);
    if (this.until.size > 10_000) for (const [id, until] of this.until) if (until < now) this.until.delete(id);
  }

  isWatched(jobId: number): boolean {
    const until = this.until.get(jobId);
    if (until === undefined) return false;
    if (until >= this.clock()) return true;
    this.until.delete(jobId);
    return false;
  }
}
