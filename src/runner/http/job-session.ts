/**
 * The JobSession over HTTP (reference §5): the trace is kept whole in memory (bounded by the
 * output limit) and sent with PATCH + Content-Range every update interval while output
 * flows (1 s unless the coordinator's X-GitLab-Trace-Update-Interval says otherwise), at most
 * 1 MiB a request; 416 rewinds or skips to the coordinator's size; a keep-alive
 * `PUT state=running` during silence; a 403 or Job-Status canceled/failed aborts the job,
 * `Job-Status: canceling` asks for a graceful cancel (after_script still runs).
 * Against a Gantry coordinator, one more keep-alive is held open (`X-Gantry-Job-Watch`) and
 * answered the moment the job's status changes, so a cancel arrives at once instead of at the
 * next update; a coordinator that answers it without holding (GitLab) is not asked again.
 * finish() flushes every byte, then PUTs the final state with `crc32:` checksum and size,
 * again after 202 (later) and 412 (whole trace resent), until the coordinator takes it.
 */
import CRC32 from 'crc-32';
import type { Dependency } from '../../protocol/job-payload.ts';
import type { ArtifactUpload, ArtifactUploadResult, JobOutcome, JobSession } from '../job/session.ts';
import type { RunnerInfoBody } from '../version.ts';
import { downloadArtifacts, patchTrace, updateJob, uploadArtifact, type RemoteAnswer, type UpdateJobBody } from './job-api.ts';
import type { Transport } from './transport.ts';

export interface HttpJobSessionOptions {
  transport: Transport;
  jobId: number;
  jobToken: string;
  info: RunnerInfoBody;
  /** Seconds between trace updates until the coordinator says otherwise (default 1). */
  updateInterval?: number;
  /** Longest silence before a keep-alive PUT, in seconds (gitlab-runner: 30). */
  keepAliveInterval?: number;
  /** Give up on the final update after this long (gitlab-runner retries forever). */
  finishDeadlineMs?: number;
  /** Retry delay of artifact uploads and downloads (tests shorten it). */
  transferRetryDelayMs?: number;
  /** Seconds a Gantry coordinator may hold the watched keep-alive (absent or 0: do not watch). */
  watchSeconds?: number;
  onLog?: (message: string) => void;
}

const PATCH_LIMIT = 1024 * 1024;
/** Back-off of a held keep-alive that got no answer (1 s doubling to 30 s). */
const WATCH_RETRY_MIN_MS = 1000;
const WATCH_RETRY_MAX_MS = 30_000;

/** An append-only byte log with random reads. */
class ByteLog {
  private buffer = Buffer.alloc(64 * 1024);
  length = 0;
  crc = 0;

  append(bytes: Buffer): void {
    if (this.length + bytes.length > this.buffer.length) {
      const grown = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + bytes.length));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    bytes.copy(this.buffer, this.length);
    this.length += bytes.length;
    this.crc = CRC32.buf(bytes, this.crc);
  }

  slice(from: number, to: number): Buffer {
    return this.buffer.subarray(from, Math.min(to, this.length));
  }

  get checksum(): string {
    return `crc32:${(this.crc >>> 0).toString(16).padStart(8, '0')}`;
  }
}

export class HttpJobSession implements JobSession {
  private readonly log = new ByteLog();
  private readonly controller = new AbortController();
  private readonly graceful = new AbortController();
  /** Ends the watched keep-alive when the job finishes. */
  private readonly watching = new AbortController();
  readonly canceled: AbortSignal = this.controller.signal;
  readonly cancelRequested: AbortSignal = this.graceful.signal;
  private sent = 0;
  private interval: number;
  private lastSent = Date.now();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> = Promise.resolve();
  private stopped = false;
  /** The coordinator said the job is gone (404 while flushing): stop sending trace. */
  private traceGone = false;

  private watch: Promise<void> = Promise.resolve();

  constructor(private readonly options: HttpJobSessionOptions) {
    this.interval = options.updateInterval ?? 1;
    this.schedule();
    if ((options.watchSeconds ?? 0) > 0) this.watch = this.watchJob(options.watchSeconds ?? 0);
  }

  /**
   * Held keep-alives, one after the other, while the job runs and the coordinator holds them;
   * each answer is applied (a cancel stops the job). Ends at the first answer not held. No
   * answer, or a 5xx (the coordinator killed or restarting, a load balancer without a
   * backend), is no such answer: the watch starts again after a back-off, while the trace
   * updates carry on.
   */
  private async watchJob(seconds: number): Promise<void> {
    const signal = this.watching.signal;
    let retryMs = 0;
    while (!signal.aborted && !this.controller.signal.aborted) {
      const started = Date.now();
      let answer: RemoteAnswer | undefined;
      try {
        answer = this.apply(await updateJob(this.options.transport, this.options.jobId, this.updateBody({ state: 'running' }), { watchSeconds: seconds, signal }));
      } catch (error) {
        if (signal.aborted) return;
        this.options.onLog?.(`job watch failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (answer === undefined || (answer.watched !== true && answer.result === 'failed')) {
        retryMs = Math.min(WATCH_RETRY_MAX_MS, retryMs === 0 ? WATCH_RETRY_MIN_MS : retryMs * 2);
        await sleep(retryMs, signal);
        continue;
      }
      retryMs = 0;
      // After `canceling`, go on watching: a forced cancel then ends the job at once too.
      if (answer.watched !== true || answer.result === 'abort') return;
      // A coordinator that answers held keep-alives at once without news is not asked in a tight loop.
      if (answer.result === 'succeeded' && Date.now() - started < 1000) await sleep(1000, signal);
    }
  }

  appendTrace(bytes: Buffer): void {
    if (bytes.length > 0) this.log.append(bytes);
  }

  get traceBytes(): Buffer {
    return Buffer.from(this.log.slice(0, this.log.length));
  }

  uploadArtifact(upload: ArtifactUpload): Promise<ArtifactUploadResult> {
    return uploadArtifact(this.options.transport, this.options.jobId, this.options.jobToken, upload, { retryDelayMs: this.options.transferRetryDelayMs });
  }

  downloadArtifacts(dependency: Dependency, destination: string): Promise<void> {
    return downloadArtifacts(this.options.transport, dependency, destination, { retryDelayMs: this.options.transferRetryDelayMs });
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => this.schedule());
    }, this.interval * 1000);
  }

  private async tick(): Promise<void> {
    try {
      if (this.sent < this.log.length) {
        await this.sendTrace();
      } else if (Date.now() - this.lastSent >= Math.min(this.options.keepAliveInterval ?? 30, this.interval) * 1000) {
        this.apply(await updateJob(this.options.transport, this.options.jobId, this.updateBody({ state: 'running' })));
        this.lastSent = Date.now();
      }
    } catch (error) {
      this.options.onLog?.(`trace update failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** One PATCH of what is unsent (up to 1 MiB). */
  private async sendTrace(): Promise<RemoteAnswer> {
    const offset = this.sent;
    const bytes = this.log.slice(offset, offset + PATCH_LIMIT);
    const answer = this.apply(await patchTrace(this.options.transport, this.options.jobId, this.options.jobToken, bytes, offset));
    if (answer.result === 'succeeded') {
      this.sent = offset + bytes.length;
      this.lastSent = Date.now();
    } else if (answer.result === 'range-mismatch' && answer.remoteSize !== undefined) {
      this.sent = Math.min(answer.remoteSize, this.log.length);
    } else if (answer.result === 'not-found') {
      this.traceGone = true;
    }
    return answer;
  }

  private apply(answer: RemoteAnswer): RemoteAnswer {
    if (answer.updateInterval !== undefined) this.interval = answer.updateInterval;
    if (answer.result === 'abort' && !this.controller.signal.aborted) {
      this.options.onLog?.(`the coordinator stopped the job (${answer.status})`);
      this.controller.abort();
    }
    if (answer.result === 'cancel-requested' && !this.graceful.signal.aborted) {
      this.options.onLog?.('the coordinator asked to cancel the job (Job-Status: canceling)');
      this.graceful.abort();
    }
    return answer;
  }

  private updateBody(outcome: JobOutcome | { state: 'running' }): UpdateJobBody {
    const checksum = this.log.checksum;
    const body: UpdateJobBody = { info: this.options.info, token: this.options.jobToken, state: outcome.state };
    if ('failureReason' in outcome && outcome.failureReason) body.failure_reason = outcome.failureReason;
    if ('exitCode' in outcome && outcome.exitCode) body.exit_code = outcome.exitCode;
    body.checksum = checksum;
    body.output = { checksum, bytesize: this.log.length };
    return body;
  }

  /** Sends everything unsent; false when the coordinator refused more (abort, 404, errors past the deadline). */
  private async flush(deadline: number): Promise<void> {
    while (this.sent < this.log.length && !this.traceGone && Date.now() < deadline) {
      let answer: RemoteAnswer;
      try {
        answer = await this.sendTrace();
      } catch (error) {
        this.options.onLog?.(`trace flush failed: ${error instanceof Error ? error.message : String(error)}`);
        await sleep(this.interval * 1000);
        continue;
      }
      if (answer.result === 'abort' || answer.result === 'not-found') return;
      if (answer.result === 'failed') await sleep(this.interval * 1000);
    }
  }

  async finish(outcome: JobOutcome): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.watching.abort();
    await Promise.all([this.ticking, this.watch]);
    const deadline = Date.now() + (this.options.finishDeadlineMs ?? 60 * 60_000);
    while (Date.now() < deadline) {
      await this.flush(deadline);
      let answer: RemoteAnswer;
      try {
        answer = this.apply(await updateJob(this.options.transport, this.options.jobId, this.updateBody(outcome)));
      } catch (error) {
        this.options.onLog?.(`final update failed: ${error instanceof Error ? error.message : String(error)}`);
        await sleep(this.interval * 1000);
        continue;
      }
      if (answer.result === 'succeeded' || answer.result === 'abort' || answer.result === 'cancel-requested') return;
      if (answer.result === 'trace-validation-failed') {
        this.sent = 0;
        this.traceGone = false;
        continue;
      }
      await sleep(this.interval * 1000);
    }
    this.options.onLog?.('gave up sending the final job state');
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
