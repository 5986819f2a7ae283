import type BetterSqlite3 from 'better-sqlite3';

/**
 * Direct reads on a SQLite connection that run close together share one read transaction.
 * Outside a transaction each statement takes and drops WAL's read lock on its own (two
 * `fcntl` calls, a few microseconds each), which cost more than most of our indexed reads;
 * one request's reads (sign-in, the project, its namespace chain, memberships, counts) now
 * take it once.
 *
 * Outside requests (below), a batch never outlives the callback that opened it: it ends once
 * that callback's `process.nextTick` and promise queues are drained, before the event loop
 * reads any more input. Whatever made a request or event arrive (another process's commit included)
 * happened before the callback started, so before the batch's snapshot: no batch serves
 * anything staler than the moment its first read ran. It also ends before anything else
 * runs on its connection (writes, `begin`, statements through kysely that are not plain
 * reads) and before any write through any connection of this process, so a write is
 * seen by the next read whichever connection makes it.
 *
 * Requests share more: the reads of every request that arrives in one poll phase of the
 * event loop share one batch, ended by the check phase right after it (see
 * {@link readsForRequest}). Every event one poll hands out (requests, child
 * exits, finished file reads) happened before that poll returned, so before the batch's
 * first read; under load one lock and one commit then serve dozens of requests. (libuv polls
 * again within the phase only when 1,024 events came at once.)
 */
export class ReadBatch {
  private open = false;
  /** Counts the transactions this batch opened: equal values, one snapshot. */
  generation = 0;
  private readonly begin: BetterSqlite3.Statement;
  private readonly commit: BetterSqlite3.Statement;
  private readonly endAfterQueues = () => queueMicrotask(() => process.nextTick(() => this.end()));

  constructor(private readonly sqlite: BetterSqlite3.Database) {
    this.begin = sqlite.prepare('begin');
    this.commit = sqlite.prepare('commit');
  }

  /** Joins (or opens) the batch; false when a transaction of someone else's holds the connection. */
  enter(): boolean {
    if (this.open) return true;
    if (this.sqlite.inTransaction) return false;
    this.begin.run();
    this.open = true;
    this.generation += 1;
    openBatches.add(this);
    if (!sharingWithRequests) process.nextTick(this.endAfterQueues);
    return true;
  }

  /** Ends the batch, if open: the next read sees every commit made until now. */
  end(): void {
    if (!this.open) return;
    this.open = false;
    openBatches.delete(this);
    if (this.sqlite.open && this.sqlite.inTransaction) this.commit.run();
  }
}

const openBatches = new Set<ReadBatch>();

/** Before a write through any connection of this process: every batch ends, so no read misses it. */
export function endAllReadBatches(): void {
  for (const batch of openBatches) batch.end();
}

let sharingWithRequests = false;

const endRequestSharing = () => {
  sharingWithRequests = false;
  endAllReadBatches();
};

/**
 * Called as a request arrives. One read from a socket arrives in the poll phase: batches
 * opened from now until the check phase that follows last until then, shared by every such
 * request of the poll; the first of them ends whatever batch is open first. Any other request
 * (an injected one, from a timer or a promise of a test or of an embedding host) may arrive
 * after a commit made in the same phase, so it ends every batch and shares nothing.
 */
export function readsForRequest(fromSocket: boolean): void {
  if (!fromSocket) {
    sharingWithRequests = false;
    endAllReadBatches();
    return;
  }
  if (sharingWithRequests) return;
  endAllReadBatches();
  sharingWithRequests = true;
  setImmediate(endRequestSharing);
}
