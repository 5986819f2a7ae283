import { Worker } from 'node:worker_threads';
import type { Logger } from '../shared/logger.ts';
import type { GitWorkQueueOptions } from '../storage/git/work-queue.ts';
import type { TasksStore } from '../storage/types-tasks.ts';
import type { HookWorker } from './hook-sending.ts';
import { HOOK_DELIVERY_TASK } from './services/hooks/hook-deliveries.ts';

/** The database the coordinator opened, for the thread to open again (a connection of its own). */
export interface HookThreadStorage {
  databaseUrl: string;
  /** The coordinator's configured secret keys (else the data directory's key file). */
  secretKeys?: readonly string[];
  git?: { work?: GitWorkQueueOptions; blameMaxBytes?: number };
}

/** What the thread starts from (its `workerData`). */
export interface HookThreadSettings {
  storage: HookThreadStorage;
  dataDir: string;
  externalUrl: string;
  /** The coordinator's instance id: the thread's tasks are this coordinator's. */
  instanceId: string;
  logLevel: string;
  concurrency: number;
  timeoutMs?: number;
  retryBaseMs?: number;
  pollIntervalMs?: number;
}

export type ToHookThread = { type: 'wake' } | { type: 'start' } | { type: 'stop'; graceMs: number } | { type: 'close'; graceMs: number };
export type FromHookThread = { type: 'ready' } | { type: 'stopped' } | { type: 'log'; line: string };

/** While no thread runs, how often the queue is looked at for deliveries another coordinator left (its own wake starts one at once). */
const IDLE_CHECK_MS = 30_000;
/** A thread that failed starts again after this, doubled each time up to a minute, until one reports ready. */
const RESTART_MIN_MS = 1_000;
const RESTART_MAX_MS = 60_000;
/** Beyond the grace a stopping thread has for its deliveries in flight, before it is ended. */
const EXIT_MARGIN_MS = 5_000;

/**
 * The deliveries' task worker in a thread of its own, so that sending (SQL, payloads, HTTP)
 * runs beside the coordinator's requests instead of between them. The thread opens the
 * database again (a SQLite file in WAL mode, or its own PostgreSQL pool) and the
 * repositories, through the factories the coordinator uses (hook-thread-main.ts); this side
 * wakes it by message when a delivery is enqueued, and relays its log lines. It starts at the
 * first wake, or when the queue holds deliveries (at start, then every IDLE_CHECK_MS): a
 * coordinator whose projects have no webhooks runs no thread. Stopping lets the deliveries in
 * flight finish (or their leases expire, as in-process); closing then has the thread close its
 * connections and end.
 */
export class HookThread implements HookWorker {
  readonly mode = 'thread';
  readonly kinds = [HOOK_DELIVERY_TASK];
  readonly concurrency: number;
  private thread: Worker | undefined;
  private exited: Promise<void> = Promise.resolve();
  private running = false;
  private idleCheck: NodeJS.Timeout | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private restartDelayMs = RESTART_MIN_MS;
  /** Told when the thread's worker has stopped (after a `stop` message). */
  private onStopped: (() => void) | undefined;

  constructor(
    private readonly settings: HookThreadSettings,
    private readonly deps: { logger: Logger; tasks: Pick<TasksStore, 'nextRunAt'> },
  ) {
    this.concurrency = settings.concurrency;
  }

  get started(): boolean {
    return this.running;
  }

  get defersToRequests(): boolean {
    return this.threadRunning;
  }

  /** Whether the thread itself is up (it starts with the first delivery). */
  get threadRunning(): boolean {
    return this.thread !== undefined;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    if (this.thread) this.post(this.thread, { type: 'start' });
    else this.lookForDeliveries();
  }

  wake(): void {
    if (!this.running) return;
    if (this.thread) this.post(this.thread, { type: 'wake' });
    else if (this.restartTimer === undefined) this.spawn();
  }

  /** Claims nothing more and waits for the deliveries in flight (TaskWorker.stop); the thread stays, idle, for `start`. */
  async stop(graceMs = 30_000): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.clearTimers();
    const thread = this.thread;
    if (!thread) return;
    const stopped = new Promise<void>((resolve) => {
      this.onStopped = resolve;
      void this.exited.then(resolve);
    });
    this.post(thread, { type: 'stop', graceMs });
    await stopped;
  }

  /** Stops, and ends the thread once it has closed its connections (at the coordinator's shutdown). */
  async close(graceMs = 30_000): Promise<void> {
    this.running = false;
    this.clearTimers();
    const thread = this.thread;
    if (!thread) return;
    this.post(thread, { type: 'close', graceMs });
    const timer = setTimeout(() => void thread.terminate(), graceMs + EXIT_MARGIN_MS);
    await this.exited;
    clearTimeout(timer);
  }

  private clearTimers(): void {
    clearTimeout(this.idleCheck);
    clearTimeout(this.restartTimer);
    this.idleCheck = undefined;
    this.restartTimer = undefined;
  }

  private lookForDeliveries(): void {
    if (!this.running || this.thread || this.restartTimer) return;
    this.deps.tasks.nextRunAt(this.kinds).then(
      (next) => {
        if (next !== undefined && this.running && !this.thread && !this.restartTimer) this.spawn();
      },
      (error: unknown) => this.deps.logger.warn({ err: error }, 'could not look for queued webhook deliveries'),
    );
    this.idleCheck = setTimeout(() => this.lookForDeliveries(), IDLE_CHECK_MS);
    this.idleCheck.unref();
  }

  private spawn(): void {
    clearTimeout(this.idleCheck);
    this.idleCheck = undefined;
    const thread = startThread(this.settings);
    this.thread = thread;
    // Like the in-process worker's timers, the thread alone does not keep the process alive.
    thread.unref();
    this.exited = new Promise((resolve) => thread.once('exit', () => resolve()));
    thread.on('message', (message: FromHookThread) => {
      if (message.type === 'ready') this.restartDelayMs = RESTART_MIN_MS;
      else if (message.type === 'stopped') this.onStopped?.();
      else this.relay(message.line);
    });
    thread.on('error', (error) => this.deps.logger.error({ err: error }, 'the webhook delivery thread failed'));
    thread.once('exit', (code) => {
      if (this.thread === thread) this.thread = undefined;
      if (!this.running) return;
      this.deps.logger.warn({ code, restartInMs: this.restartDelayMs }, 'the webhook delivery thread ended; starting it again');
      this.restartTimer = setTimeout(() => {
        this.restartTimer = undefined;
        if (this.running) this.spawn();
      }, this.restartDelayMs);
      this.restartTimer.unref();
      this.restartDelayMs = Math.min(RESTART_MAX_MS, this.restartDelayMs * 2);
    });
  }

  private post(thread: Worker, message: ToHookThread): void {
    thread.postMessage(message);
  }

  /** A line of the thread's logger, written by this one (its redaction and masking apply). */
  private relay(line: string): void {
    const { level, msg, time: _time, pid: _pid, hostname: _hostname, ...fields } = JSON.parse(line) as Record<string, unknown>;
    const { logger } = this.deps;
    const label = typeof level === 'number' ? logger.levels.labels[level] : undefined;
    const write = label === 'fatal' || label === 'error' || label === 'warn' || label === 'debug' || label === 'trace' ? label : 'info';
    logger[write](fields, typeof msg === 'string' ? msg : '');
  }
}

/**
 * From the compiled package the thread's module is `hook-thread-main.js` beside this file
 * (named through its folder, as the compile worker's: `runner exec`'s bundle holds this code
 * too, though its in-memory database never starts the thread). Run from sources (tests,
 * benches under tsx), the thread first registers tsx, which Node 20 does not pass on to
 * worker threads.
 */
function startThread(settings: HookThreadSettings): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('../coordinator/hook-thread-main.js', here), { workerData: settings });
  const entry = JSON.stringify(new URL('./hook-thread-main.ts', here).href);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return new Worker(`import(${tsx}).then(({ register }) => { register(); return import(${entry}); })`, { eval: true, workerData: settings });
}
