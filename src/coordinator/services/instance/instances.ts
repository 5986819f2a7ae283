import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { errorSummary } from '../../../shared/errors.ts';
import type { Logger } from '../../../shared/logger.ts';
import { GANTRY_VERSION } from '../../../shared/version.ts';
import type { InstanceRecord, InstancesStore } from '../../../storage/types-instances.ts';

export interface InstanceTiming {
  /** How often the heartbeat is written (default 5 s). */
  heartbeatIntervalMs?: number;
  /** A coordinator whose heartbeat is older than this is dead: others clean up after it (default 30 s). */
  staleAfterMs?: number;
  /** How often to look for dead coordinators (default half of staleAfterMs; PostgreSQL only). */
  upkeepIntervalMs?: number;
}

/** What a readiness check wants to know about this process's place among the coordinators. */
export interface InstanceHealth {
  id: string;
  /** The database holds this process's row (from start until a clean stop). */
  registered: boolean;
  /** When the last heartbeat was written (ISO 8601), null before the first one. */
  last_heartbeat_at: string | null;
  /** Why the last attempt to write the heartbeat failed; null when it succeeded. */
  last_heartbeat_error: string | null;
  /** The last heartbeat is recent enough that no other coordinator takes this one for dead. */
  healthy: boolean;
}

/** The defaults of InstanceTiming. */
export const INSTANCE_TIMING_DEFAULTS = { heartbeatIntervalMs: 5_000, staleAfterMs: 30_000 } as const;
/** The longest interval a Node timer keeps (a longer one fires after 1 ms). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Throws naming `name` unless `value` is a whole number of milliseconds a timer can wait. */
export function checkTimerMs(name: string, value: number): void {
  if (!(Number.isSafeInteger(value) && value >= 1 && value <= MAX_TIMER_MS)) throw new Error(`${name} must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS} (got ${value})`);
}

/**
 * This coordinator process among the others on the database: an instance id (a random UUID
 * per process), recorded in `coordinator_instances` with a heartbeat. Temporary files, task
 * leases and pending project marks carry the id; whatever a process whose heartbeat stopped
 * left behind is cleaned up by the others (coordinator/repository-reconciliation.ts).
 * `singleProcess` (SQLite, one process per database) makes every other recorded instance dead.
 */
export class CoordinatorInstance {
  readonly id = randomUUID();
  readonly heartbeatIntervalMs: number;
  readonly staleAfterMs: number;
  readonly upkeepIntervalMs: number;
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> = Promise.resolve();
  private registered = false;
  private lastHeartbeatAt: number | null = null;
  private lastHeartbeatError: string | null = null;

  constructor(
    private readonly deps: { store: InstancesStore; logger: Logger; singleProcess: boolean; clock?: () => number },
    timing: InstanceTiming = {},
  ) {
    this.heartbeatIntervalMs = timing.heartbeatIntervalMs ?? INSTANCE_TIMING_DEFAULTS.heartbeatIntervalMs;
    this.staleAfterMs = timing.staleAfterMs ?? INSTANCE_TIMING_DEFAULTS.staleAfterMs;
    this.upkeepIntervalMs = timing.upkeepIntervalMs ?? Math.floor(this.staleAfterMs / 2);
    checkTimerMs('instances.heartbeatIntervalMs', this.heartbeatIntervalMs);
    checkTimerMs('instances.staleAfterMs', this.staleAfterMs);
    checkTimerMs('instances.upkeepIntervalMs', this.upkeepIntervalMs);
    if (this.staleAfterMs < 2 * this.heartbeatIntervalMs) {
      throw new Error(`instances.staleAfterMs (${this.staleAfterMs}) must span at least two heartbeats (instances.heartbeatIntervalMs ${this.heartbeatIntervalMs})`);
    }
  }

  /** Records this process; its heartbeat starts with `start`. */
  async register(): Promise<void> {
    await this.deps.store.register({ id: this.id, hostname: hostname(), pid: process.pid, version: GANTRY_VERSION, started_at: new Date(this.now()).toISOString() });
    this.registered = true;
    this.lastHeartbeatAt = this.now();
  }

  start(): void {
    if (this.timer) return;
    let inFlight = false;
    this.timer = setInterval(() => {
      // One heartbeat at a time: two that both found the row gone would register it twice.
      if (inFlight) return;
      inFlight = true;
      this.beating = this.beat().finally(() => {
        inFlight = false;
      });
    }, this.heartbeatIntervalMs);
    this.timer.unref();
  }

  /** Stops the heartbeat and removes the row (best effort): from now on this process counts as gone. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.beating;
    if (!this.registered) return;
    this.registered = false;
    try {
      await this.deps.store.remove(this.id);
    } catch (error) {
      // The database is gone: the row stays, and the other coordinators take it for dead once its heartbeat ages.
      this.deps.logger.warn({ err: error, instance_id: this.id }, 'could not remove the coordinator instance row at stop');
    }
  }

  health(): InstanceHealth {
    const last = this.lastHeartbeatAt;
    return {
      id: this.id,
      registered: this.registered,
      last_heartbeat_at: last === null ? null : new Date(last).toISOString(),
      last_heartbeat_error: this.lastHeartbeatError,
      healthy: this.registered && last !== null && this.now() - last < this.staleAfterMs,
    };
  }

  /** The other coordinators alive now (none with a single-process database). */
  async livePeers(): Promise<InstanceRecord[]> {
    if (this.deps.singleProcess) return [];
    return (await this.deps.store.live(this.staleAfterMs)).filter((instance) => instance.id !== this.id);
  }

  /** Ids of every coordinator alive now, this one included. */
  async liveIds(): Promise<Set<string>> {
    return new Set([this.id, ...(await this.livePeers()).map((instance) => instance.id)]);
  }

  private async beat(): Promise<void> {
    try {
      if (await this.deps.store.heartbeat(this.id)) {
        this.registered = true;
        this.lastHeartbeatAt = this.now();
        this.lastHeartbeatError = null;
        return;
      }
      // Another coordinator took this one for dead (a heartbeat missed for too long) and may
      // have removed its temporary files: say so, and count as alive again once recorded anew.
      this.registered = false;
      this.deps.logger.error({ instance_id: this.id }, 'this coordinator was taken for dead by another (its heartbeat stopped too long); registering again');
      await this.register();
      this.lastHeartbeatError = null;
    } catch (error) {
      this.lastHeartbeatError = errorSummary(error);
      this.deps.logger.warn({ err: error, instance_id: this.id }, 'could not write the coordinator heartbeat');
    }
  }

  private now(): number {
    return (this.deps.clock ?? Date.now)();
  }
}
