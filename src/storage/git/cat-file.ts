import { finished } from 'node:stream/promises';
import type { Logger } from '../../shared/logger.ts';
import { GitCommandError, gitEnvironment } from './run.ts';
import { sharedSpawner, type ProcessExit, type SpawnedProcess } from './spawner.ts';

export type GitObjectType = 'commit' | 'tree' | 'blob' | 'tag';

export interface ObjectInfo {
  id: string;
  type: GitObjectType;
  size: number;
}

export interface ObjectContents extends ObjectInfo {
  data: Buffer;
}

/** A request written to a process and not answered yet; `line` is what was written (kept to re-send it). */
export interface PendingRequest {
  line: string;
  withContents: boolean;
  resolve(value: ObjectContents | ObjectInfo | null): void;
  reject(error: Error): void;
}

/** The process was stopped on purpose (idle, evicted, repository removed) before it answered. */
export class CatFileClosedError extends Error {
  constructor(gitDir: string) {
    super(`git cat-file closed in ${gitDir}`);
    this.name = 'CatFileClosedError';
  }
}

/** How a process ended on its own: the request it died on, and those queued behind it. */
export interface CatFileExit {
  error: GitCommandError;
  /** The line of the request at the head of the queue (failed), if any. */
  culprit: string | null;
  /** Requests written after the culprit, to be re-sent to a fresh process. */
  orphans: PendingRequest[];
}

const STDERR_TAIL = 4096;

/** Bytes received but not consumed yet; kept as chunks so large blobs are not re-copied per chunk. */
class ChunkQueue {
  private chunks: Buffer[] = [];
  length = 0;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  /** Index of the first newline, or -1. */
  indexOfNewline(): number {
    let offset = 0;
    for (const chunk of this.chunks) {
      const index = chunk.indexOf(10);
      if (index >= 0) return offset + index;
      offset += chunk.length;
    }
    return -1;
  }

  take(count: number): Buffer {
    const first = this.chunks[0];
    if (first && first.length >= count) {
      const head = first.subarray(0, count);
      if (first.length === count) this.chunks.shift();
      else this.chunks[0] = first.subarray(count);
      this.length -= count;
      return head;
    }
    const joined = Buffer.concat(this.chunks);
    this.chunks = joined.length > count ? [joined.subarray(count)] : [];
    this.length -= count;
    return joined.subarray(0, count);
  }
}

const CAT_FILE_ARGS = ['cat-file', '--batch-command'] as const;

/**
 * One `git cat-file --batch-command` process. Requests are written as they come and the
 * answers read in order, so concurrent reads pipeline through the one process. git answers
 * (and flushes) each command before reading the next, so when the process dies, every
 * request before the head of the queue has its answer and the head is the one it died on.
 * The process is started by the process spawner (a fork of its small helper, not of this
 * process); requests made before it is up are written once it is.
 */
export class CatFileProcess {
  private subprocess: SpawnedProcess | null = null;
  /** Lines written before the process was up, in order. */
  private unsent: string[] = [];
  private exitedAlready = false;
  private readonly pending: PendingRequest[] = [];
  private readonly received = new ChunkQueue();
  private header: ObjectInfo | null = null;
  private failure: Error | null = null;
  private stderrTail = '';
  lastUsed = Date.now();

  constructor(
    readonly gitDir: string,
    private readonly onExit: (process: CatFileProcess, exit: CatFileExit | null) => void,
  ) {
    sharedSpawner()
      .spawn({ file: 'git', args: [`--git-dir=${gitDir}`, ...CAT_FILE_ARGS], env: gitEnvironment() })
      .then(
        (subprocess) => this.started(subprocess),
        (error: unknown) => {
          this.stderrTail = error instanceof Error ? error.message : String(error);
          this.exited({ code: -1, signal: null });
        },
      );
  }

  private started(subprocess: SpawnedProcess): void {
    this.subprocess = subprocess;
    subprocess.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    // Drained so warnings (ambiguous names) can never fill the pipe and stall the process.
    subprocess.stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    for (const stream of [subprocess.stdin, subprocess.stdout, subprocess.stderr]) stream.on('error', () => undefined);
    // Its answers still on the way when it exits are read first: they answer requests before the
    // culprit; and its last words, which give the culprit's error its reason.
    void Promise.all([subprocess.exited, finished(subprocess.stdout).catch(() => undefined), finished(subprocess.stderr).catch(() => undefined)]).then(([exit]) => this.exited(exit));
    if (this.failure) {
      // Closed while it started.
      this.stop();
      return;
    }
    for (const line of this.unsent.splice(0)) subprocess.stdin.write(line);
  }

  get busy(): boolean {
    return this.pending.length > 0;
  }

  get alive(): boolean {
    return this.failure === null;
  }

  /** The git process id (tests kill it to play a crash). */
  get pid(): number | undefined {
    return this.subprocess?.pid;
  }

  info(object: string): Promise<ObjectInfo | null> {
    return this.request(`info ${object}\n`, false);
  }

  contents(object: string): Promise<ObjectContents | null> {
    return this.request(`contents ${object}\n`, true) as Promise<ObjectContents | null>;
  }

  /** Takes over requests a dead process left unanswered, in their order. */
  adopt(requests: readonly PendingRequest[]): void {
    for (const request of requests) {
      if (this.failure) {
        request.reject(this.failure);
        continue;
      }
      this.pending.push(request);
      this.write(request.line);
    }
  }

  /** Ends the process on purpose; pending requests fail with CatFileClosedError. */
  close(): void {
    if (this.failure) return;
    this.failure = new CatFileClosedError(this.gitDir);
    for (const request of this.pending.splice(0)) request.reject(this.failure);
    this.stop();
    this.onExit(this, null);
  }

  private request(line: string, withContents: boolean): Promise<ObjectContents | ObjectInfo | null> {
    if (this.failure) return Promise.reject(this.failure);
    this.lastUsed = Date.now();
    return new Promise((resolve, reject) => {
      this.pending.push({ line, withContents, resolve, reject });
      this.write(line);
    });
  }

  private write(line: string): void {
    if (this.subprocess) this.subprocess.stdin.write(line);
    else this.unsent.push(line);
  }

  private onData(chunk: Buffer): void {
    this.received.push(chunk);
    for (;;) {
      const request = this.pending[0];
      if (!request) return;
      if (this.header === null) {
        const newline = this.received.indexOfNewline();
        if (newline < 0) return;
        const line = this.received.take(newline + 1).toString('utf8').slice(0, -1);
        const parsed = parseHeader(line);
        if (parsed === null || !request.withContents) {
          this.pending.shift();
          request.resolve(parsed);
          continue;
        }
        this.header = parsed;
      }
      if (this.received.length < this.header.size + 1) return;
      const data = Buffer.from(this.received.take(this.header.size));
      this.received.take(1);
      const header = this.header;
      this.header = null;
      this.pending.shift();
      request.resolve({ ...header, data });
    }
  }

  /** The process ended by itself: only the request it died on fails; the rest go to a new process. */
  private exited(exit: ProcessExit): void {
    this.exitedAlready = true;
    if (this.failure) return;
    const stderr = this.stderrTail.trim() || (exit.signal ? `killed by ${exit.signal}` : exit.code === null ? 'lost by the process spawner' : '');
    const error = new GitCommandError([`--git-dir=${this.gitDir}`, ...CAT_FILE_ARGS], exit.code ?? -1, stderr);
    this.failure = error;
    const [culprit, ...orphans] = this.pending.splice(0);
    culprit?.reject(error);
    this.stop();
    this.onExit(this, { error, culprit: culprit ? culprit.line.trimEnd() : null, orphans });
  }

  private stop(): void {
    this.unsent = [];
    if (this.subprocess && !this.exitedAlready) {
      this.subprocess.stdin.end();
      this.subprocess.kill();
    }
  }
}

/** "<oid> <type> <size>" or "<object> missing|ambiguous". */
function parseHeader(line: string): ObjectInfo | null {
  const match = /^([0-9a-f]{40,64}) (commit|tree|blob|tag) (\d+)$/.exec(line);
  if (!match) return null;
  return { id: match[1]!, type: match[2] as GitObjectType, size: Number(match[3]) };
}

export interface CatFilePoolOptions {
  /** Idle processes are stopped after this long. */
  idleMs?: number;
  /** At most this many processes; the least recently used idle one goes first. */
  maxProcesses?: number;
  logger?: Logger;
}

/** Long-lived cat-file processes, one per busy repository, started lazily. */
export class CatFilePool {
  private readonly processes = new Map<string, CatFileProcess>();
  private readonly idleMs: number;
  private readonly maxProcesses: number;
  private sweeper: NodeJS.Timeout | null = null;
  private closed = false;
  /** Processes started so far (for tests and the bench). */
  started = 0;

  constructor(private readonly options: CatFilePoolOptions = {}) {
    this.idleMs = options.idleMs ?? 60_000;
    this.maxProcesses = options.maxProcesses ?? 64;
  }

  get size(): number {
    return this.processes.size;
  }

  /** The process for a repository, started when there is none. */
  acquire(gitDir: string): CatFileProcess {
    const existing = this.processes.get(gitDir);
    if (existing && existing.alive) {
      // Re-insert: Map order is the LRU order.
      this.processes.delete(gitDir);
      this.processes.set(gitDir, existing);
      return existing;
    }
    this.evictForRoom();
    const created = new CatFileProcess(gitDir, (exited, exit) => this.onExit(gitDir, exited, exit));
    this.started += 1;
    this.processes.set(gitDir, created);
    this.scheduleSweep();
    return created;
  }

  private onExit(gitDir: string, exited: CatFileProcess, exit: CatFileExit | null): void {
    if (this.processes.get(gitDir) === exited) this.processes.delete(gitDir);
    if (exit === null) return;
    this.options.logger?.warn(
      { gitDir, request: exit.culprit, err: exit.error, requeued: exit.orphans.length },
      'git cat-file died; failing the request it died on and re-sending the others to a new process',
    );
    if (exit.orphans.length === 0) return;
    if (this.closed) {
      for (const request of exit.orphans) request.reject(new CatFileClosedError(gitDir));
      return;
    }
    this.acquire(gitDir).adopt(exit.orphans);
  }

  /** Stops the process of one repository (before it is removed or replaced). */
  release(gitDir: string): void {
    this.processes.get(gitDir)?.close();
  }

  /** Stops processes idle longer than the idle limit. */
  sweep(now = Date.now()): void {
    for (const process of [...this.processes.values()]) {
      if (!process.busy && now - process.lastUsed >= this.idleMs) process.close();
    }
    if (this.processes.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }

  close(): void {
    this.closed = true;
    for (const process of [...this.processes.values()]) process.close();
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
  }

  private evictForRoom(): void {
    if (this.processes.size < this.maxProcesses) return;
    // Busy processes are never stopped: with every process busy the pool grows for a moment.
    const victim = [...this.processes.values()].find((process) => !process.busy);
    if (!victim) return;
    this.options.logger?.debug({ gitDir: victim.gitDir }, 'cat-file pool full, stopping the least recently used process');
    victim.close();
  }

  private scheduleSweep(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => this.sweep(), Math.max(10, Math.min(this.idleMs, 10_000)));
    this.sweeper.unref();
  }
}
