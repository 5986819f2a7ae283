/**
 * One `[[runners]]` entry's poll loops and its jobs (see daemon.ts). A config reload hands a
 * worker its entry's new settings (reconfigure): jobs already running keep the entry,
 * executor and transport they started with; the next job request uses the new ones. An entry
 * gone from the file is retired: it stops asking, its running jobs finish.
 */
import type { Logger } from '../../shared/logger.ts';
import type { Executor } from '../../executors/types.ts';
import type { JobPayload } from '../../protocol/job-payload.ts';
import type { RunnerEntry } from '../config/config.ts';
import { endpointOf } from '../http/endpoints.ts';
import { HttpJobSession } from '../http/job-session.ts';
import { requestJob } from '../http/runner-api.ts';
import { Transport } from '../http/transport.ts';
import { runJob, type BeforeFailedCleanup } from '../job/engine.ts';
import { shortToken } from '../job/identity.ts';
import { runnerInfo, userAgent, type RunnerInfoBody } from '../version.ts';
import type { DaemonObserver, JobLabels, RunnerStatus } from './metrics.ts';
import { executorOf, identityOf, jobSettingsOf } from './settings.ts';
import { timelineMark } from '../timeline.ts';
import type { ShortHistory } from '../job/sources.ts';

const UNHEALTHY_AFTER = 3;
/** How long a Gantry coordinator may hold a job's watched keep-alive (a cancel ends it at once), unless the options say otherwise. */
const JOB_WATCH_SECONDS = 50;

/** What a worker needs of the daemon. */
export interface DaemonControl {
  readonly stopSignal: AbortSignal;
  readonly shutdownSignal: AbortSignal;
  /** check_interval in milliseconds (a reload may change it). */
  readonly checkIntervalMs: number;
  hasCapacity(): boolean;
  runInSlot(work: (concurrentId: number) => Promise<void>): Promise<void>;
}

export interface WorkerTimings {
  unhealthyPauseMs?: number;
  /** Wait for a job's clean-up before the next job request, as before issue 25 (bench/next-job's baseline). */
  cleanupBeforeNextJob?: boolean;
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

export interface WorkerOptions {
  entry: RunnerEntry;
  daemon: DaemonControl;
  /** The daemon's logger; the worker logs through a child naming its entry. */
  logger: Logger;
  workingDirectory: string;
  /** Executors by entry (tests give fakes); default: from the entry's `executor`. */
  executorFor?: (entry: RunnerEntry) => Executor;
  traceUpdateInterval?: number;
  /** This host's system id, sent with job requests. */
  systemId?: string;
  timings?: WorkerTimings;
  observer?: DaemonObserver;
  beforeFailedCleanup?: BeforeFailedCleanup;
  sourcesAlternates?: readonly string[];
  sourcesShortHistories?: readonly ShortHistory[];
  sourcesAlternateRefPrefixes?: readonly string[];
  copiedSourcesRoot?: string;
  /** Seconds a job's watched keep-alive may be held (default 50; 0: none is asked for). */
  jobWatchSeconds?: number;
}

/** The settings that decide which executor an entry gets. */
const executorSettings = (entry: RunnerEntry): string => JSON.stringify([entry.executor, entry.docker, entry.buildsDir, entry.shell]);
const tlsSettings = (entry: RunnerEntry): string => JSON.stringify([entry.tlsCaFile, entry.tlsCertFile, entry.tlsKeyFile]);

export class RunnerWorker {
  entry: RunnerEntry;
  transport: Transport;
  executor: Executor;
  info: RunnerInfoBody;
  logger: Logger;
  running = 0;
  requesting = 0;
  forbiddenInRow = 0;
  disabledUntil = 0;
  private readonly retired = new AbortController();
  /** Aborted when the daemon stops or this entry left the config. */
  private readonly signal: AbortSignal;
  private readonly loops = new Map<number, Promise<void>>();
  private readonly jobs = new Set<Promise<void>>();
  /** Executor clean-ups still running after their job reported (the slot is free meanwhile). */
  private readonly cleanups = new Set<Promise<void>>();
  private readonly previousTransports: Transport[] = [];
  private readonly projectSlots = new Map<number, Set<number>>();
  private readonly sleepers = new Set<() => void>();
  private started = false;

  constructor(private readonly options: WorkerOptions) {
    this.entry = options.entry;
    this.logger = this.childLogger();
    this.transport = this.createTransport();
    this.executor = this.createExecutor();
    this.info = runnerInfo(this.executor, this.entry.shell);
    this.signal = AbortSignal.any([options.daemon.stopSignal, this.retired.signal]);
    this.signal.addEventListener('abort', () => this.wake());
  }

  get labels(): JobLabels {
    return { runner: shortToken(this.entry.token), name: this.entry.name };
  }

  status(now = Date.now()): RunnerStatus {
    return { ...this.labels, limit: this.entry.limit, requesting: this.requesting, running: this.running, healthy: now >= this.disabledUntil };
  }

  private childLogger(): Logger {
    return this.options.logger.child({ runner: shortToken(this.entry.token), name: this.entry.name });
  }

  private createTransport(entry = this.entry): Transport {
    return new Transport({
      url: entry.url,
      userAgent: userAgent(),
      tlsCaFile: entry.tlsCaFile,
      tlsCertFile: entry.tlsCertFile,
      tlsKeyFile: entry.tlsKeyFile,
      onResponse: (method, path, status) => this.options.observer?.apiRequest(this.labels, endpointOf(method, path), status),
    });
  }

  private createExecutor(entry = this.entry): Executor {
    return this.options.executorFor?.(entry) ?? executorOf(entry, this.options.workingDirectory);
  }

  async sweep(): Promise<void> {
    try {
      const removed = (await this.executor.sweep?.()) ?? 0;
      if (removed > 0) this.logger.info({ removed }, 'removed what a previous runner process left behind');
    } catch (error) {
      this.logger.warn({ err: error }, 'could not look for leftovers of a previous runner process');
    }
  }

  start(): void {
    this.started = true;
    this.ensureLoops();
  }

  /** New settings for the same entry (same url and token). Throws, changing nothing, when the new TLS files or executor settings cannot be used. */
  reconfigure(entry: RunnerEntry): void {
    const previous = this.entry;
    const transport = tlsSettings(entry) !== tlsSettings(previous) ? this.createTransport(entry) : null;
    let executor: Executor;
    try {
      executor = executorSettings(entry) !== executorSettings(previous) ? this.createExecutor(entry) : this.executor;
    } catch (error) {
      void transport?.close();
      throw error;
    }
    this.entry = entry;
    if (transport) {
      this.previousTransports.push(this.transport);
      this.transport = transport;
    }
    this.executor = executor;
    this.info = runnerInfo(executor, entry.shell);
    if (entry.name !== previous.name) this.logger = this.childLogger();
    if (this.started) this.ensureLoops();
    this.wake();
  }

  /** The entry left the config: stop asking for jobs; resolves once its running jobs finished. */
  async retire(): Promise<void> {
    this.retired.abort('removed from the config');
    await this.stopped();
    await this.idle();
    await this.close();
  }

  async stopped(): Promise<void> {
    while (this.loops.size > 0) await Promise.all(this.loops.values());
  }

  private async idle(): Promise<void> {
    while (this.jobs.size > 0) await Promise.all(this.jobs);
    await this.cleaned();
  }

  /** Resolves once every job's clean-up (containers, work directories) is done. */
  async cleaned(): Promise<void> {
    while (this.cleanups.size > 0) await Promise.all(this.cleanups);
  }

  async close(): Promise<void> {
    await Promise.all([this.transport, ...this.previousTransports].map((transport) => transport.close()));
  }

  /** One poll loop per request_concurrency slot; loops above a lowered value end after their current request. */
  private ensureLoops(): void {
    if (this.signal.aborted) return;
    const count = Math.max(1, this.entry.requestConcurrency);
    for (let index = 0; index < count; index++) {
      if (this.loops.has(index)) continue;
      const loop = this.loop(index).finally(() => this.loops.delete(index));
      this.loops.set(index, loop);
    }
  }

  private wake(): void {
    for (const resolve of this.sleepers) resolve();
    this.sleepers.clear();
  }

  private sleep(ms: number): Promise<void> {
    if (this.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  private underLimit(): boolean {
    const { limit } = this.entry;
    return limit <= 0 || this.running < limit;
  }

  private async loop(index: number): Promise<void> {
    const { daemon, timings } = this.options;
    const minBackoff = timings?.minBackoffMs ?? 1000;
    const maxBackoff = timings?.maxBackoffMs ?? 60_000;
    let backoff = 0;
    const backOff = (): number => (backoff = Math.min(maxBackoff, backoff ? backoff * 2 : minBackoff));
    while (!this.signal.aborted && index < Math.max(1, this.entry.requestConcurrency)) {
      const { entry, logger } = this;
      const checkIntervalMs = daemon.checkIntervalMs;
      if (Date.now() < this.disabledUntil) {
        await this.sleep(Math.min(this.disabledUntil - Date.now(), checkIntervalMs));
        continue;
      }
      if (!daemon.hasCapacity() || !this.underLimit()) {
        await this.sleep(checkIntervalMs);
        continue;
      }
      let result;
      this.requesting++;
      try {
        timelineMark(`request ${index}`);
        result = await requestJob(this.transport, entry.token, this.info, this.signal, this.options.systemId);
        timelineMark(`request ${index} answered: ${result.kind}${result.kind === 'job' ? ` ${result.payload.job_info.name}` : ''}`);
      } catch (error) {
        if (this.signal.aborted) break;
        // No answer is not a 403: it ends a run of 403s (reference §7.3).
        this.forbiddenInRow = 0;
        logger.warn({ err: error instanceof Error ? error.message : String(error), retryInMs: backOff() }, 'checking for jobs failed');
        await this.sleep(backoff);
        continue;
      } finally {
        this.requesting--;
      }
      if (result.kind !== 'forbidden') this.forbiddenInRow = 0;
      switch (result.kind) {
        case 'job':
          backoff = 0;
          this.startJob(result.payload);
          continue;
        case 'none':
          backoff = 0;
          await this.sleep(checkIntervalMs);
          continue;
        case 'forbidden':
          this.forbiddenInRow++;
          logger.warn({ status: 403 }, 'checking for jobs... forbidden');
          if (this.forbiddenInRow >= UNHEALTHY_AFTER) {
            logger.error(`runner ${shortToken(entry.token)} (${entry.name}) is not healthy and will be disabled! (3 requests answered 403 in a row; check its token)`);
            this.disabledUntil = Date.now() + (timings?.unhealthyPauseMs ?? 60 * 60_000);
            this.forbiddenInRow = 0;
          }
          await this.sleep(checkIntervalMs);
          continue;
        case 'invalid':
          logger.error({ job: result.id }, result.message);
          await this.failUnusableJob(result.id, result.token, result.message);
          continue;
        case 'failed':
          if (result.status === 429 || result.status >= 500 || result.status === -1) {
            logger.warn({ status: result.status, retryInMs: backOff() }, `checking for jobs failed: ${result.message}`);
            await this.sleep(backoff);
          } else {
            logger.warn({ status: result.status }, `checking for jobs failed: ${result.message}`);
            await this.sleep(checkIntervalMs);
          }
          continue;
      }
    }
  }

  private async failUnusableJob(id: number, token: string, message: string): Promise<void> {
    const session = new HttpJobSession({ transport: this.transport, jobId: id, jobToken: token, info: this.info, finishDeadlineMs: 60_000 });
    session.appendTrace(Buffer.from(`\x1b[31;1mERROR: Job failed (system failure): ${message}\n\x1b[0;m`));
    await session.finish({ state: 'failed', failureReason: 'runner_system_failure' });
  }

  private takeProjectSlot(projectId: number): number {
    const used = this.projectSlots.get(projectId) ?? new Set<number>();
    this.projectSlots.set(projectId, used);
    let slot = 0;
    while (used.has(slot)) slot++;
    used.add(slot);
    return slot;
  }

  private startJob(payload: JobPayload): void {
    // A job keeps what it started with, whatever a reload changes meanwhile.
    const { entry, executor, transport, info } = this;
    const { daemon, observer } = this.options;
    const labels = this.labels;
    this.running++;
    const logger = this.logger.child({ job: payload.id, project: payload.job_info.project_id });
    const job = daemon
      .runInSlot(async (concurrentId) => {
        const projectSlot = this.takeProjectSlot(payload.job_info.project_id);
        const started = Date.now();
        logger.info({ jobName: payload.job_info.name }, 'job started');
        observer?.jobStarted(labels);
        const session = new HttpJobSession({
          transport,
          jobId: payload.id,
          jobToken: payload.token,
          info,
          updateInterval: this.options.traceUpdateInterval,
          watchSeconds: this.options.jobWatchSeconds ?? JOB_WATCH_SECONDS,
          onLog: (message) => logger.debug(message),
        });
        try {
          const outcome = await runJob({
            payload,
            executor,
            session,
            runner: identityOf(entry),
            settings: { ...jobSettingsOf(entry, this.options.workingDirectory), sourcesAlternates: this.options.sourcesAlternates, sourcesShortHistories: this.options.sourcesShortHistories, sourcesAlternateRefPrefixes: this.options.sourcesAlternateRefPrefixes, copiedSourcesRoot: this.options.copiedSourcesRoot },
            concurrentId,
            concurrentProjectId: projectSlot,
            signal: daemon.shutdownSignal,
            onStage: (stage, seconds) => observer?.jobStage?.(labels, stage, seconds),
            beforeFailedCleanup: this.options.beforeFailedCleanup,
            // The slot (and the next job request) does not wait for containers to be removed.
            onCleanup: this.options.timings?.cleanupBeforeNextJob ? undefined : (cleanup) => {
              const tracked: Promise<void> = cleanup
                .catch((error: unknown) => logger.warn({ err: error }, 'job clean-up failed'))
                .finally(() => this.cleanups.delete(tracked));
              this.cleanups.add(tracked);
            },
          });
          timelineMark(`job ${payload.job_info.name} finished`);
          const durationMs = Date.now() - started;
          observer?.jobFinished(labels, outcome, durationMs / 1000);
          logger.info({ state: outcome.state, failureReason: outcome.failureReason, durationMs }, 'job finished');
        } catch (error) {
          logger.error({ err: error }, 'job crashed');
        } finally {
          this.projectSlots.get(payload.job_info.project_id)?.delete(projectSlot);
        }
      })
      .finally(() => {
        timelineMark(`job ${payload.job_info.name} slot free`);
        this.running--;
        this.jobs.delete(job);
        this.wake();
      });
    this.jobs.add(job);
  }
}
