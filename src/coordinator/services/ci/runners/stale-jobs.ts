import { effectiveJobTimeout } from '../../../../ci/job-timeout.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { CiJobsStore, JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { RunnersStore } from '../../../../storage/types-runners.ts';
import type { JobOutcomes } from './job-outcomes.ts';

/** When jobs count as stuck or timed out, and how often to look. */
export interface StaleJobLimits {
  /** A running job with no update (trace patch, keep-alive) for this long fails (default 1 h, GitLab's). */
  runningStuckMs?: number;
  /** A pending job no runner took for this long fails (default 24 h, GitLab's). */
  pendingStuckMs?: number;
  /**
   * A canceling job whose runner sent nothing for this long ends canceled (default 10 min:
   * the runner's after_script may take 5, then it reports).
   */
  cancelingStuckMs?: number;
  /**
   * A running job this long past its timeout fails with `job_execution_timeout` (default
   * 5 min: the runner enforces the timeout itself and may take that long to report it).
   */
  timeoutGraceMs?: number;
  /**
   * A job handed out whose runner sent nothing about it (no trace, no update) for this long
   * fails with `scheduler_failure`, which is retried automatically (default 2 min: GitLab's
   * wait for a runner's acknowledgement of a job, `RUNNER_ACK_QUEUE_EXPIRY_TIME`).
   */
  handOutAckMs?: number;
  /** How often the sweep runs (default 60 s). */
  intervalMs?: number;
  /** How often unacknowledged hand-outs are looked for (default 15 s). */
  handOutIntervalMs?: number;
}

export const STALE_JOB_DEFAULTS = {
  runningStuckMs: 60 * 60 * 1000,
  pendingStuckMs: 24 * 60 * 60 * 1000,
  cancelingStuckMs: 10 * 60 * 1000,
  timeoutGraceMs: 5 * 60 * 1000,
  handOutAckMs: 2 * 60 * 1000,
  intervalMs: 60 * 1000,
  handOutIntervalMs: 15 * 1000,
} as const;

/** Jobs failed per category and sweep; the rest wait for the next sweep. */
const BATCH = 200;

export interface StaleJobsDeps {
  jobs: Pick<CiJobsStore, 'listStale' | 'list' | 'listUnacknowledged'>;
  runners: Pick<RunnersStore, 'findByIds'>;
  outcomes: Pick<JobOutcomes, 'fail'>;
  logger: Logger;
  limits?: StaleJobLimits;
  /** Epoch milliseconds. */
  clock?: () => number;
}

/**
 * GitLab's StuckCiJobsWorker for our queue: fails running jobs past their timeout
 * (`job_execution_timeout`), running jobs that stopped reporting and pending jobs no runner
 * took (`stuck_or_timeout_failure`), each through pipeline processing. Every coordinator
 * may sweep: a job another one failed first is simply left (processing refuses the move).
 *
 * Besides, lost hand-outs: a job request's claim commits before its answer is written, so a
 * coordinator killed in between (or an answer lost on the way) leaves a running job no runner
 * has. Every runner reports a job it took within seconds (a trace patch or an update), so a
 * job not heard of since its claim for `handOutAckMs` fails with `scheduler_failure` — what
 * GitLab drops a job with when its hand-out fails after the claim — and GitLab's automatic
 * retry of that reason (twice) queues it again.
 */
export class StaleJobs {
  private readonly clock: () => number;
  private readonly limits: Required<StaleJobLimits>;
  private timer: NodeJS.Timeout | undefined;
  private handOutTimer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private handOutTicking: Promise<void> | undefined;

  constructor(private readonly deps: StaleJobsDeps) {
    this.clock = deps.clock ?? Date.now;
    this.limits = { ...STALE_JOB_DEFAULTS, ...definedOnly(deps.limits ?? {}) };
  }

  /** One sweep; answers how many jobs it failed per reason. */
  async sweep(): Promise<{ timedOut: number; stuckRunning: number; stuckPending: number; stuckCanceling: number }> {
    const now = this.clock();
    const timedOut = await this.failAll(await this.pastTimeout(now), 'job_execution_timeout');
    const stuckRunning = await this.failAll(await this.deps.jobs.listStale('running', iso(now - this.limits.runningStuckMs), BATCH), 'stuck_or_timeout_failure');
    const stuckPending = await this.failAll(await this.deps.jobs.listStale('pending', iso(now - this.limits.pendingStuckMs), BATCH), 'stuck_or_timeout_failure');
    // A canceling job "dropped" ends canceled (GitLab's `drop` from canceling).
    const stuckCanceling = await this.failAll(await this.deps.jobs.listStale('canceling', iso(now - this.limits.cancelingStuckMs), BATCH), 'stuck_or_timeout_failure', 'canceled');
    return { timedOut, stuckRunning, stuckPending, stuckCanceling };
  }

  /** Fails the hand-outs no runner acknowledged in time; answers how many. */
  async sweepHandOuts(): Promise<number> {
    const lost = await this.deps.jobs.listUnacknowledged(iso(this.clock() - this.limits.handOutAckMs), BATCH);
    return this.failAll(lost, 'scheduler_failure');
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.ticking ??= this.sweep()
        .then((swept) => {
          if (swept.timedOut + swept.stuckRunning + swept.stuckPending + swept.stuckCanceling > 0) this.deps.logger.info(swept, 'failed stuck and timed-out jobs');
        }, (error: unknown) => this.deps.logger.warn({ err: error }, 'stuck job sweep failed'))
        .finally(() => (this.ticking = undefined));
    }, this.limits.intervalMs);
    this.timer.unref();
    this.handOutTimer = setInterval(() => {
      this.handOutTicking ??= this.sweepHandOuts()
        .then((failed) => {
          if (failed > 0) this.deps.logger.warn({ failed }, 'failed jobs whose hand-out no runner acknowledged (scheduler_failure, retried)');
        }, (error: unknown) => this.deps.logger.warn({ err: error }, 'lost hand-out sweep failed'))
        .finally(() => (this.handOutTicking = undefined));
    }, this.limits.handOutIntervalMs);
    this.handOutTimer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.handOutTimer);
    this.timer = undefined;
    this.handOutTimer = undefined;
    await Promise.all([this.ticking, this.handOutTicking]);
  }

  /** Running builds whose start plus timeout plus grace lies before `now`. */
  private async pastTimeout(now: number): Promise<JobRecord[]> {
    const due: JobRecord[] = [];
    for (let offset = 0; due.length < BATCH; offset += BATCH) {
      const { items } = await this.deps.jobs.list({ statuses: ['running'], types: ['build'], sort: 'asc' }, { offset, limit: BATCH });
      const runners = new Map((await this.deps.runners.findByIds(items.flatMap((job) => (job.runner_id === null ? [] : [job.runner_id])))).map((runner) => [runner.id, runner]));
      for (const job of items) {
        if (job.started_at === null) continue;
        const runner = job.runner_id === null ? undefined : runners.get(job.runner_id);
        const deadline = Date.parse(job.started_at) + effectiveJobTimeout(job.definition?.timeout, runner?.maximum_timeout) * 1000 + this.limits.timeoutGraceMs;
        if (deadline < now) due.push(job);
      }
      if (items.length < BATCH) break;
    }
    return due;
  }

  /** Fails each job for `reason`; answers how many ended in `counted`. */
  private async failAll(jobs: readonly JobRecord[], reason: string, counted: 'failed' | 'canceled' = 'failed'): Promise<number> {
    let failed = 0;
    for (const job of jobs) {
      try {
        if ((await this.deps.outcomes.fail(job, reason)) === counted) failed += 1;
      } catch (error) {
        this.deps.logger.warn({ err: error, job: job.id, reason }, 'could not fail a stale job');
      }
    }
    return failed;
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}
