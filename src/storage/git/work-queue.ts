import { availableParallelism } from 'node:os';
import { GantryError } from '../../shared/errors.ts';

/**
 * Who asked for a piece of heavy git work (clone, archive, blame, diff): `key` groups a
 * requester's work for fairness (a user, or an address for anonymous callers); `signal`
 * aborts when the requester has gone, so queued work leaves the queue and running git stops.
 */
export interface GitClient {
  key: string;
  signal?: AbortSignal;
}

export interface GitWorkQueueOptions {
  /** Heavy git processes running at once. Default: twice the CPU count, at least 2. */
  slots?: number;
  /** Requests one requester may have waiting; more are refused (GANTRY_E_GIT_TOO_MANY_WAITING). Default 256. */
  maxQueuedPerKey?: number;
  /** Requests waiting in all; more are refused (GANTRY_E_GIT_BUSY). Default 4,096. */
  maxQueued?: number;
}

/** A granted slot; release it once the work's stream has ended or failed (twice is harmless). */
export interface WorkSlot {
  release(): void;
}

/** The requester went away while its work waited or ran; nobody reads the answer. */
export class ClientGoneError extends GantryError {
  constructor() {
    super('GANTRY_E_CLIENT_GONE');
    this.name = 'ClientGoneError';
  }
}

/** One requester has too much heavy git work waiting, or everyone together has. */
export class GitWorkRefusedError extends GantryError {
  constructor(readonly reason: 'requester' | 'everyone') {
    super(reason === 'requester' ? 'GANTRY_E_GIT_TOO_MANY_WAITING' : 'GANTRY_E_GIT_BUSY');
    this.name = 'GitWorkRefusedError';
  }
}

interface Waiter {
  key: string;
  grant(slot: WorkSlot): void;
  refuse(error: Error): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export function defaultWorkSlots(): number {
  return Math.max(2, 2 * availableParallelism());
}

/**
 * A bounded, fair queue for heavy git work. At most `slots` pieces run at once; waiting work
 * is served round-robin across requester keys (one waiting piece per key in turn, keys in
 * the order they started waiting), so one requester with fifty clones queued cannot hold up
 * another's single archive for more than one turn.
 */
export class GitWorkQueue {
  readonly slots: number;
  private readonly maxQueuedPerKey: number;
  private readonly maxQueued: number;
  private active = 0;
  private waitingCount = 0;
  /** Waiting work per key; Map order is the round-robin order. */
  private readonly waiting = new Map<string, Waiter[]>();

  constructor(options: GitWorkQueueOptions = {}) {
    this.slots = Math.max(1, Math.floor(options.slots ?? defaultWorkSlots()));
    this.maxQueuedPerKey = Math.max(1, options.maxQueuedPerKey ?? 256);
    this.maxQueued = Math.max(1, options.maxQueued ?? 4096);
  }

  /** Pieces of work holding a slot. */
  get running(): number {
    return this.active;
  }

  /** Pieces of work waiting for a slot. */
  get queued(): number {
    return this.waitingCount;
  }

  /** Waits for a slot; rejects with ClientGoneError when `client.signal` aborts first. */
  acquire(client: GitClient): Promise<WorkSlot> {
    if (client.signal?.aborted) return Promise.reject(new ClientGoneError());
    if (this.active < this.slots && this.waitingCount === 0) return Promise.resolve(this.grantNew());
    const line = this.waiting.get(client.key);
    if ((line?.length ?? 0) >= this.maxQueuedPerKey) return Promise.reject(new GitWorkRefusedError('requester'));
    if (this.waitingCount >= this.maxQueued) return Promise.reject(new GitWorkRefusedError('everyone'));
    return new Promise<WorkSlot>((resolve, reject) => {
      const waiter: Waiter = { key: client.key, grant: resolve, refuse: reject, signal: client.signal };
      if (client.signal) {
        waiter.onAbort = () => this.leave(waiter);
        client.signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      if (line) line.push(waiter);
      else this.waiting.set(client.key, [waiter]);
      this.waitingCount += 1;
    });
  }

  /** Runs `work` in a slot, releasing it when the promise settles. */
  async run<T>(client: GitClient, work: () => Promise<T>): Promise<T> {
    const slot = await this.acquire(client);
    try {
      return await work();
    } finally {
      slot.release();
    }
  }

  private grantNew(): WorkSlot {
    this.active += 1;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.active -= 1;
        this.next();
      },
    };
  }

  /** Hands free slots to waiting work, one key at a time in turn. */
  private next(): void {
    while (this.active < this.slots && this.waitingCount > 0) {
      const [key, line] = this.waiting.entries().next().value as [string, Waiter[]];
      const waiter = line.shift()!;
      this.waiting.delete(key);
      // Back of the round: the key waits for every other key's turn before its next one.
      if (line.length > 0) this.waiting.set(key, line);
      this.waitingCount -= 1;
      if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.grant(this.grantNew());
    }
  }

  private leave(waiter: Waiter): void {
    const line = this.waiting.get(waiter.key);
    const index = line?.indexOf(waiter) ?? -1;
    if (!line || index < 0) return;
    line.splice(index, 1);
    if (line.length === 0) this.waiting.delete(waiter.key);
    this.waitingCount -= 1;
    waiter.refuse(new ClientGoneError());
  }
}
