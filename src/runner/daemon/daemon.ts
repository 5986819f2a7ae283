/**
 * `runner run`: one poll loop per `[[runners]]` entry (reference §7.2–§7.4). Jobs run in a
 * p-queue of `concurrent` slots; an entry asks for a job only while it is under its `limit`
 * and has fewer than `request_concurrency` requests in flight. Three 403s in a row disable an
 * entry for an hour; network errors, 429 and 5xx back off. stop() stops asking and lets the
 * jobs finish (SIGQUIT); abort() fails the running jobs with runner_system_failure (SIGTERM).
 * applyConfig() takes a reloaded config.toml without dropping a running job.
 */
import PQueue from 'p-queue';
import type { Logger } from '../../shared/logger.ts';
import type { Executor } from '../../executors/types.ts';
import type { RunnerConfig, RunnerEntry } from '../config/config.ts';
import { shortToken } from '../job/identity.ts';
import type { DaemonObserver, DaemonStatus } from './metrics.ts';
import type { BeforeFailedCleanup } from '../job/engine.ts';
import { RunnerWorker, type DaemonControl, type WorkerTimings } from './worker.ts';
import type { ShortHistory } from '../job/sources.ts';

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
  /** This host's system id, sent with job requests (each host is a runner manager). */
  systemId?: string;
  /** Told about jobs and coordinator requests (the metrics). */
  observer?: DaemonObserver;
  /** Test hooks: shorter waits. */
  timings?: WorkerTimings & { checkIntervalMs?: number };
  /** Given to every job (runner exec's --shell-on-failure). */
  beforeFailedCleanup?: BeforeFailedCleanup;
  /** Object directories every new clone on this machine borrows (runner exec: see JobSettings). */
  sourcesAlternates?: readonly string[];
  /** Commits without a parent those alternates hold (runner exec's snapshots: see JobSettings). */
  sourcesShortHistories?: readonly ShortHistory[];
  /** Which of those alternates' refs a new clone's fetch is told of (runner exec: see JobSettings). */
  sourcesAlternateRefPrefixes?: readonly string[];
  /** Where docker jobs keep their clone on this machine (runner exec: see JobSettings). */
  copiedSourcesRoot?: string;
  /** Seconds a Gantry coordinator may hold a job's watched keep-alive (default 50; 0: none is asked for). */
  jobWatchSeconds?: number;
}

/** What a reload changed, for its log line. */
export interface ConfigChanges {
  added: string[];
  removed: string[];
  changed: string[];
  /** Entries whose new settings could not be used (they keep the old ones). */
  rejected: string[];
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

/** An entry is the same runner across reloads while its URL and token are. */
const entryKey = (entry: RunnerEntry): string => `${entry.url}\n${entry.token}`;
const describe = (entry: RunnerEntry): string => `${entry.name || '(unnamed)'} ${shortToken(entry.token)}`;

export class RunnerDaemon implements DaemonControl {
  readonly jobs: PQueue;
  workers: RunnerWorker[];
  private config: RunnerConfig;
  private readonly retiring = new Set<Promise<void>>();
  private readonly shutdown = new AbortController();
  private readonly stopping = new AbortController();
  private buildsStarted = 0;
  private started = false;
  private readonly concurrentSlots = slotPool();

  constructor(private readonly options: DaemonOptions) {
    this.config = options.config;
    this.jobs = new PQueue({ concurrency: options.config.concurrent });
    this.workers = options.config.runners.map((entry) => this.createWorker(entry));
  }

  private createWorker(entry: RunnerEntry): RunnerWorker {
    const { options } = this;
    return new RunnerWorker({
      entry,
      daemon: this,
      logger: options.logger,
      workingDirectory: options.workingDirectory,
      executorFor: options.executorFor,
      traceUpdateInterval: options.traceUpdateInterval,
      systemId: options.systemId,
      timings: options.timings,
      observer: options.observer,
      beforeFailedCleanup: options.beforeFailedCleanup,
      sourcesAlternates: options.sourcesAlternates,
      sourcesShortHistories: options.sourcesShortHistories,
      sourcesAlternateRefPrefixes: options.sourcesAlternateRefPrefixes,
      copiedSourcesRoot: options.copiedSourcesRoot,
      jobWatchSeconds: options.jobWatchSeconds,
    });
  }

  get shutdownSignal(): AbortSignal {
    return this.shutdown.signal;
  }

  get stopSignal(): AbortSignal {
    return this.stopping.signal;
  }

  get currentConfig(): RunnerConfig {
    return this.config;
  }

  get checkIntervalMs(): number {
    return this.options.timings?.checkIntervalMs ?? (this.config.checkInterval > 0 ? this.config.checkInterval : 3) * 1000;
  }

  /**
   * A job slot is free (the process-wide `concurrent`), counting the job requests in flight as
   * gitlab-runner does: a job handed out then starts at once and reports to the coordinator
   * within seconds, instead of waiting silently for a slot (the coordinator fails a hand-out
   * its runner does not report, see docs/runner.md).
   */
  hasCapacity(): boolean {
    const requesting = this.workers.reduce((sum, worker) => sum + worker.requesting, 0);
    return this.jobs.pending + this.jobs.size + requesting < this.config.concurrent && !this.buildLimitReached();
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

  status(): DaemonStatus {
    const now = Date.now();
    return { concurrent: this.config.concurrent, accepting: !this.stopping.signal.aborted, runners: this.workers.map((worker) => worker.status(now)) };
  }

  async start(): Promise<void> {
    this.started = true;
    await Promise.all(this.workers.map((worker) => worker.sweep()));
    for (const worker of this.workers) worker.start();
  }

  /**
   * A reloaded config: `concurrent`, `check_interval` and `shutdown_timeout` apply at once;
   * new entries start polling, removed ones stop asking and finish their jobs, changed ones
   * use their new settings from their next job on. Running jobs are never interrupted.
   */
  applyConfig(next: RunnerConfig): ConfigChanges {
    const changes: ConfigChanges = { added: [], removed: [], changed: [], rejected: [] };
    const available = new Map<string, RunnerWorker[]>();
    for (const worker of this.workers) {
      const key = entryKey(worker.entry);
      available.set(key, [...(available.get(key) ?? []), worker]);
    }
    const kept: RunnerWorker[] = [];
    const added: RunnerWorker[] = [];
    for (const entry of next.runners) {
      const existing = available.get(entryKey(entry))?.shift();
      if (!existing) {
        try {
          added.push(this.createWorker(entry));
          changes.added.push(describe(entry));
        } catch (error) {
          this.options.logger.error(`runner ${describe(entry)} cannot start: ${error instanceof Error ? error.message : String(error)}`);
          changes.rejected.push(describe(entry));
        }
        continue;
      }
      kept.push(existing);
      if (JSON.stringify(existing.entry) === JSON.stringify(entry)) continue;
      try {
        existing.reconfigure(entry);
        changes.changed.push(describe(entry));
      } catch (error) {
        existing.logger.error(`new settings of runner ${describe(entry)} cannot be used, keeping the previous ones: ${error instanceof Error ? error.message : String(error)}`);
        changes.rejected.push(describe(entry));
      }
    }
    const removed = [...available.values()].flat();
    this.config = next;
    this.jobs.concurrency = next.concurrent;
    this.workers = [...kept, ...added];
    for (const worker of removed) {
      changes.removed.push(describe(worker.entry));
      const retiring: Promise<void> = worker.retire().finally(() => this.retiring.delete(retiring));
      this.retiring.add(retiring);
    }
    if (this.started && !this.stopping.signal.aborted) {
      for (const worker of added) void worker.sweep().then(() => worker.start());
    }
    return changes;
  }

  /** SIGQUIT: no new jobs; resolves when the running ones finished. */
  async stop(): Promise<void> {
    this.stopping.abort('stop');
    await this.settled();
    await this.close();
  }

  /** SIGTERM/SIGINT: running jobs fail (runner_system_failure); waits up to `timeoutMs` for them to report. */
  async abort(reason: string, timeoutMs = this.config.shutdownTimeout * 1000): Promise<boolean> {
    this.stopping.abort(reason);
    this.shutdown.abort(reason);
    const idle = this.settled().then(() => true);
    const timer = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
    const finished = await Promise.race([idle, timer]);
    if (finished) await this.close();
    return finished;
  }

  /** Resolves once every worker stopped and every job finished (run-single with --max-builds). */
  async finished(): Promise<void> {
    await this.settled();
    await this.close();
  }

  private async settled(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.stopped()));
    await this.jobs.onIdle();
    await Promise.all(this.workers.map((worker) => worker.cleaned()));
    while (this.retiring.size > 0) await Promise.all(this.retiring);
  }

  private async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
  }
}
