/**
 * `runner run`: one poll loop per `[[runners]]` entry (reference §7.2–§7.4). Jobs run in a
 * p-queue of `concurrent` slots; an entry asks for a job only while it is under its `limit`
 * and has fewer than `request_concurrency` requests in flight. Three 403s in a row disable an
 * entry for an hour; network errors, 429 and 5xx back off. stop() stops asking and lets the
 * jobs finish (SIGQUIT); abort() fails the running jobs with runner_system_failure (SIGTERM).
 */
import PQueue from 'p-queue';
import type { Logger } from '../../shared/logger.ts';
import type { Executor } from '../../executors/types.ts';
import type { RunnerConfig, RunnerEntry } from '../config/config.ts';
import { RunnerWorker, type DaemonControl } from './worker.ts';

export interface DaemonOptions {
  config: RunnerConfig;
  logger: Logger;
  workingDirectory: string;
  /** Executors by entry (tests give fakes); default: from the entry's `executor`. */
  executorFor?: (entry: RunnerEntry) => Executor;
  /** Stop after this many jobs (run-single --max-builds). */
  maxBuilds?: number;
  /** Seconds between trace updates (default 1). */
  traceUpdateInterval?: number;
  /** Test hooks: shorter waits. */
  timings?: { unhealthyPauseMs?: number; maxBackoffMs?: number; checkIntervalMs?: number };
}

export interface SlotPool {
  take(): number;
  give(slot: number): void;
}

function slotPool(): SlotPool {
  const used = new Set<number>();
  return {
    take() {
      let slot = 0;
      while (used.has(slot)) slot++;
      used.add(slot);
      return slot;
    },
    give(slot) {
      used.delete(slot);
    },
  };
}

export class RunnerDaemon implements DaemonControl {
  readonly jobs: PQueue;
  readonly workers: RunnerWorker[];
  private readonly shutdown = new AbortController();
  private readonly stopping = new AbortController();
  private buildsStarted = 0;
  private readonly concurrentSlots = slotPool();

  constructor(private readonly options: DaemonOptions) {
    this.jobs = new PQueue({ concurrency: options.config.concurrent });
    this.workers = options.config.runners.map(
      (entry) =>
        new RunnerWorker({
          entry,
          daemon: this,
          logger: options.logger.child({ runner: entry.token.slice(0, 8), name: entry.name }),
          workingDirectory: options.workingDirectory,
          executor: options.executorFor?.(entry),
          checkIntervalMs: options.timings?.checkIntervalMs ?? (options.config.checkInterval > 0 ? options.config.checkInterval : 3) * 1000,
          traceUpdateInterval: options.traceUpdateInterval,
          timings: options.timings,
        }),
    );
  }

  get shutdownSignal(): AbortSignal {
    return this.shutdown.signal;
  }

  get stopSignal(): AbortSignal {
    return this.stopping.signal;
  }

  /** A job slot is free (the process-wide `concurrent`). */
  hasCapacity(): boolean {
    return this.jobs.pending + this.jobs.size < this.options.config.concurrent && !this.buildLimitReached();
  }

  buildLimitReached(): boolean {
    return this.options.maxBuilds !== undefined && this.buildsStarted >= this.options.maxBuilds;
  }

  /** Runs a job in a slot; returns once it finished. */
  runInSlot(work: (concurrentId: number) => Promise<void>): Promise<void> {
    this.buildsStarted++;
    if (this.buildLimitReached()) this.stopping.abort('max builds');
    return this.jobs.add(async () => {
      const slot = this.concurrentSlots.take();
      try {
        await work(slot);
      } finally {
        this.concurrentSlots.give(slot);
      }
    });
  }

  async start(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.sweep()));
    for (const worker of this.workers) worker.start();
  }

  /** SIGQUIT: no new jobs; resolves when the running ones finished. */
  async stop(): Promise<void> {
    this.stopping.abort('stop');
    await Promise.all(this.workers.map((worker) => worker.stopped()));
    await this.jobs.onIdle();
    await this.close();
  }

  /** SIGTERM/SIGINT: running jobs fail (runner_system_failure); waits up to `timeoutMs` for them to report. */
  async abort(reason: string, timeoutMs = this.options.config.shutdownTimeout * 1000): Promise<boolean> {
    this.stopping.abort(reason);
    this.shutdown.abort(reason);
    const idle = Promise.all([...this.workers.map((worker) => worker.stopped()), this.jobs.onIdle()]).then(() => true);
    const timer = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
    const finished = await Promise.race([idle, timer]);
    if (finished) await this.close();
    return finished;
  }

  /** Resolves once every worker stopped and every job finished (run-single with --max-builds). */
  async finished(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.stopped()));
    await this.jobs.onIdle();
    await this.close();
  }

  private async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.transport.close()));
  }
}
