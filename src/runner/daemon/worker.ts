/** One `[[runners]]` entry's poll loops and its jobs (see daemon.ts). */
import type { Logger } from '../../shared/logger.ts';
import type { Executor } from '../../executors/types.ts';
import type { JobPayload } from '../../protocol/job-payload.ts';
import type { RunnerEntry } from '../config/config.ts';
import { HttpJobSession } from '../http/job-session.ts';
import { requestJob } from '../http/runner-api.ts';
import { Transport } from '../http/transport.ts';
import { runJob } from '../job/engine.ts';
import { runnerInfo, userAgent, type RunnerInfoBody } from '../version.ts';
import { executorOf, identityOf, jobSettingsOf } from './settings.ts';

const UNHEALTHY_AFTER = 3;

/** What a worker needs of the daemon. */
export interface DaemonControl {
  readonly stopSignal: AbortSignal;
  readonly shutdownSignal: AbortSignal;
  hasCapacity(): boolean;
  runInSlot(work: (concurrentId: number) => Promise<void>): Promise<void>;
}

export interface WorkerOptions {
  entry: RunnerEntry;
  daemon: DaemonControl;
  logger: Logger;
  workingDirectory: string;
  executor?: Executor;
  checkIntervalMs: number;
  traceUpdateInterval?: number;
  timings?: { unhealthyPauseMs?: number; maxBackoffMs?: number };
}

export class RunnerWorker {
  readonly transport: Transport;
  readonly executor: Executor;
  readonly info: RunnerInfoBody;
  running = 0;
  forbiddenInRow = 0;
  disabledUntil = 0;
  private loops: Promise<void>[] = [];
  private readonly projectSlots = new Map<number, Set<number>>();
  private readonly sleepers = new Set<() => void>();

  constructor(private readonly options: WorkerOptions) {
    const { entry } = options;
    this.transport = new Transport({ url: entry.url, userAgent: userAgent(), tlsCaFile: entry.tlsCaFile, tlsCertFile: entry.tlsCertFile, tlsKeyFile: entry.tlsKeyFile });
    this.executor = options.executor ?? executorOf(entry, options.workingDirectory);
    this.info = runnerInfo(this.executor, entry.shell);
    options.daemon.stopSignal.addEventListener('abort', () => this.wake());
  }

  async sweep(): Promise<void> {
    try {
      const removed = (await this.executor.sweep?.()) ?? 0;
      if (removed > 0) this.options.logger.info({ removed }, 'removed what a previous runner process left behind');
    } catch (error) {
      this.options.logger.warn({ err: error }, 'could not look for leftovers of a previous runner process');
    }
  }

  start(): void {
    const count = Math.max(1, this.options.entry.requestConcurrency);
    for (let index = 0; index < count; index++) this.loops.push(this.loop());
  }

  async stopped(): Promise<void> {
    await Promise.all(this.loops);
  }

  private wake(): void {
    for (const resolve of this.sleepers) resolve();
    this.sleepers.clear();
  }

  private sleep(ms: number): Promise<void> {
    if (this.options.daemon.stopSignal.aborted) return Promise.resolve();
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
    const { limit } = this.options.entry;
    return limit <= 0 || this.running < limit;
  }

  private async loop(): Promise<void> {
    const { daemon, logger, entry, checkIntervalMs } = this.options;
    const maxBackoff = this.options.timings?.maxBackoffMs ?? 60_000;
    let backoff = 0;
    while (!daemon.stopSignal.aborted) {
      if (Date.now() < this.disabledUntil) {
        await this.sleep(Math.min(this.disabledUntil - Date.now(), checkIntervalMs));
        continue;
      }
      if (!daemon.hasCapacity() || !this.underLimit()) {
        await this.sleep(checkIntervalMs);
        continue;
      }
      let result;
      try {
        result = await requestJob(this.transport, entry.token, this.info, daemon.stopSignal);
      } catch (error) {
        if (daemon.stopSignal.aborted) break;
        backoff = Math.min(maxBackoff, backoff ? backoff * 2 : 1000);
        logger.warn({ err: error instanceof Error ? error.message : String(error), retryInMs: backoff }, 'checking for jobs failed');
        await this.sleep(backoff);
        continue;
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
            logger.error(`runner ${entry.token.slice(0, 8)} (${entry.name}) is not healthy and will be disabled! (3 requests answered 403 in a row; check its token)`);
            this.disabledUntil = Date.now() + (this.options.timings?.unhealthyPauseMs ?? 60 * 60_000);
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
            backoff = Math.min(maxBackoff, backoff ? backoff * 2 : 1000);
            logger.warn({ status: result.status, retryInMs: backoff }, `checking for jobs failed: ${result.message}`);
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
    const { daemon, entry } = this.options;
    this.running++;
    const logger = this.options.logger.child({ job: payload.id, project: payload.job_info.project_id });
    void daemon
      .runInSlot(async (concurrentId) => {
        const projectSlot = this.takeProjectSlot(payload.job_info.project_id);
        const started = Date.now();
        logger.info({ jobName: payload.job_info.name }, 'job started');
        const session = new HttpJobSession({
          transport: this.transport,
          jobId: payload.id,
          jobToken: payload.token,
          info: this.info,
          updateInterval: this.options.traceUpdateInterval,
          onLog: (message) => logger.debug(message),
        });
        try {
          const outcome = await runJob({
            payload,
            executor: this.executor,
            session,
            runner: identityOf(entry),
            settings: jobSettingsOf(entry, this.options.workingDirectory),
            concurrentId,
            concurrentProjectId: projectSlot,
            signal: daemon.shutdownSignal,
          });
          logger.info({ state: outcome.state, failureReason: outcome.failureReason, durationMs: Date.now() - started }, 'job finished');
        } catch (error) {
          logger.error({ err: error }, 'job crashed');
        } finally {
          this.projectSlots.get(payload.job_info.project_id)?.delete(projectSlot);
        }
      })
      .finally(() => {
        this.running--;
        this.wake();
      });
  }
}
