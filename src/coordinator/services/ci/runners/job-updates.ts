import type { JobStatus } from '../../../../pipeline/types.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { CiJobsStore, JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { TraceStore } from '../../../../storage/types-blobs.ts';
import { allowedExitCodesOf } from './claim-checks.ts';
import type { JobOutcomes } from './job-outcomes.ts';
import { JobTokenAccess, type JobAuthentication } from './job-token-access.ts';
import type { JobStatusWatch } from './job-watch.ts';

/** The body of `PUT /jobs/:id` (reference/runner-protocol.md §4.1), v10 `trace` included. */
export interface JobUpdateInput {
  token?: string;
  state?: string;
  failureReason?: string;
  exitCode?: number;
  /** Top-level `checksum` (deprecated duplicate of `output.checksum`). */
  checksum?: string;
  output?: { checksum?: string; bytesize?: number };
  /** v10 runners: the whole trace text with the final state. */
  trace?: string;
}

/** What a job update comes to (§4.2). */
export type JobUpdateOutcome =
  | Exclude<JobAuthentication, { kind: 'ok' }>
  | { kind: 'invalid-state' }
  /** 200 with `Job-Status: <status>`; `watchedSeconds` when the keep-alive was held (X-Gantry-Job-Watch). */
  | { kind: 'updated'; status: JobStatus; watchedSeconds?: number }
  /** 202: the declared trace has not all arrived; the runner flushes it and updates again. */
  | { kind: 'accepted'; intervalSeconds: number; status: JobStatus }
  /** 412: still short after waiting; the runner resends its trace from offset 0. */
  | { kind: 'trace-short' };

export interface JobUpdatesDeps {
  jobs: Pick<CiJobsStore, 'findById' | 'findByTokenDigest' | 'update'>;
  traces: Pick<TraceStore, 'append' | 'size' | 'checksum'>;
  outcomes: Pick<JobOutcomes, 'finish'>;
  /** Holds watched keep-alives until the job's status changes. */
  watch?: Pick<JobStatusWatch, 'waitWhile'>;
  logger: Logger;
  /** Largest trace kept per job (the v10 `trace` parameter is cut there). */
  traceMaxBytes: number;
  /** Epoch milliseconds. */
  clock?: () => number;
}

/** Full resends asked for (412) before a final state short of its declared trace is taken anyway. */
const MAX_TRACE_RESENDS = 3;

/** The longest a watched keep-alive is held (the runner's response-header timeout is far longer). */
export const MAX_WATCH_SECONDS = 60;

/** How a keep-alive may be held: for up to `seconds`, until the runner hangs up (`whenGone`). */
export interface WatchRequest {
  seconds: number;
  whenGone?: () => AbortSignal;
}

/**
 * `PUT /jobs/:id`: keep-alives (`running`) and final states. A final state waits for the
 * trace the runner declares (`output.bytesize`): short once → 202 (a patch may still be on
 * its way); short again → 412 (the runner resends from 0, and our 416 tells it where we are)
 * up to MAX_TRACE_RESENDS times, then the state is taken with what arrived. The declared
 * checksum is compared with the stored trace's; a mismatch is logged, as GitLab does, and
 * does not hold the job back: the append-only trace cannot be rewritten by a resend.
 */
export class JobUpdates {
  private readonly clock: () => number;
  private readonly tokens: JobTokenAccess;
  /** Final updates waiting for their trace, by job id. */
  private readonly waiting = new Map<number, { since: number; resends: number; accepted: boolean }>();

  constructor(private readonly deps: JobUpdatesDeps) {
    this.clock = deps.clock ?? Date.now;
    this.tokens = new JobTokenAccess({ jobs: deps.jobs });
  }

  async update(jobId: number, input: JobUpdateInput, watch?: WatchRequest): Promise<JobUpdateOutcome> {
    const auth = await this.tokens.updatableJob(jobId, input.token);
    if (auth.kind !== 'ok') {
      if (auth.kind === 'not-running') this.waiting.delete(jobId);
      return auth;
    }
    const job = auth.job;
    const now = this.clock();
    switch (input.state) {
      case 'running':
        await this.deps.jobs.update(job.id, { updated_at: new Date(now).toISOString() });
        return watch && this.deps.watch ? this.held(job, input, watch) : { kind: 'updated', status: job.status };
      case 'success':
      case 'failed':
        return this.finish(job, input.state, input, now);
      default:
        return { kind: 'invalid-state' };
    }
  }

  private async finish(job: JobRecord, state: 'success' | 'failed', input: JobUpdateInput, now: number): Promise<JobUpdateOutcome> {
    if (input.trace !== undefined) await this.appendWholeTrace(job.id, input.trace);
    const size = await this.deps.traces.size(job.id);
    const declaredSize = input.output?.bytesize;
    if (declaredSize !== undefined && size < declaredSize) {
      const waiting = this.waiting.get(job.id) ?? { since: now, resends: 0, accepted: false };
      this.waiting.set(job.id, waiting);
      if (!waiting.accepted) {
        waiting.accepted = true;
        return { kind: 'accepted', intervalSeconds: backoffSeconds(now - waiting.since), status: job.status };
      }
      if (waiting.resends < MAX_TRACE_RESENDS) {
        waiting.resends += 1;
        waiting.accepted = false;
        return { kind: 'trace-short' };
      }
      this.deps.logger.warn({ job: job.id, declaredSize, storedSize: size }, 'final job update taken with a trace shorter than the runner declared');
    }
    this.waiting.delete(job.id);

    const checksum = size > 0 ? ((await this.deps.traces.checksum(job.id)) ?? null) : null;
    const declaredChecksum = input.output?.checksum ?? input.checksum;
    if (declaredChecksum !== undefined && declaredChecksum !== (checksum ?? 'crc32:00000000')) {
      this.deps.logger.warn({ job: job.id, declaredChecksum, storedChecksum: checksum, declaredSize, storedSize: size }, 'stored trace differs from what the runner recorded');
    }
    const allowed = state === 'failed' && failureAllowedByExitCode(job, input.exitCode);
    await this.deps.jobs.update(job.id, {
      trace_size: size,
      trace_checksum: checksum,
      ...(input.exitCode !== undefined ? { exit_code: input.exitCode } : {}),
      ...(allowed ? { allow_failure: true } : {}),
    });
    const result = await this.deps.outcomes.finish(job, state, state === 'failed' ? (input.failureReason ?? null) : null, state === 'failed' ? (input.exitCode ?? null) : null);
    // Allowed only as it fails: a job a cancel took meanwhile keeps its allow_failure.
    if (allowed && !result.moved) await this.deps.jobs.update(job.id, { allow_failure: false });
    return result.moved ? { kind: 'updated', status: result.status } : { kind: 'not-running', status: result.status };
  }

  /**
   * A watched keep-alive (Gantry's runner): answered when the job's status changes — a
   * cancel reaches the runner at once, as 200 `Job-Status: canceling` or 403 `Job-Status:
   * canceled` — or after `watch.seconds` as an ordinary keep-alive.
   */
  private async held(job: JobRecord, input: JobUpdateInput, watch: WatchRequest): Promise<JobUpdateOutcome> {
    const seconds = Math.min(MAX_WATCH_SECONDS, Math.max(1, Math.floor(watch.seconds)));
    await this.deps.watch?.waitWhile(job.id, job.status, seconds * 1000, watch.whenGone?.());
    const auth = await this.tokens.updatableJob(job.id, input.token);
    if (auth.kind !== 'ok') return auth;
    return { kind: 'updated', status: auth.job.status, watchedSeconds: seconds };
  }

  /** v10's full trace: the part past what PATCH already stored is appended (cut at the limit). */
  private async appendWholeTrace(jobId: number, trace: string): Promise<void> {
    const bytes = Buffer.from(trace, 'utf8').subarray(0, this.deps.traceMaxBytes);
    const size = await this.deps.traces.size(jobId);
    if (bytes.length > size) await this.deps.traces.append(jobId, size, bytes.subarray(size));
  }
}

/**
 * GitLab's `Ci::Build#allowed_to_fail_with_code?`: a job failing with one of its
 * `allow_failure: exit_codes` becomes allowed to fail before it is dropped, so the pipeline
 * passes with warnings.
 */
function failureAllowedByExitCode(job: JobRecord, exitCode: number | undefined): boolean {
  if (exitCode === undefined || job.allow_failure || !job.definition) return false;
  return allowedExitCodesOf(job.definition).includes(exitCode);
}

/** GitLab's runner back-off: 1, 2, 4 … 64 s, growing with the time since the first attempt. */
export function backoffSeconds(elapsedMs: number): number {
  const seconds = Math.max(1, elapsedMs / 1000);
  return Math.min(64, 2 ** Math.floor(Math.log2(seconds)));
}
