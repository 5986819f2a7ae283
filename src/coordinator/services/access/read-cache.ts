import type { TableChange } from '../../../storage/types-changes.ts';

/** What a cached answer was read from: tables as a whole, and single rows of tables. */
export interface ReadDependencies {
  /** Any write to one of these tables drops the answer. */
  tables?: readonly string[];
  /** Table → row ids: a write to one of these rows, or to the table as a whole, drops the answer. */
  rows?: Readonly<Record<string, ReadonlyArray<number | null>>>;
}

/** Where a cache learns what writes changed (the database handle, see storage/sql/changes.ts). */
export interface ChangeFeed {
  onChange(listener: (change: TableChange) => void): void;
}

const MAX_TRACKED_ROWS = 100_000;

type Entry = { stamp: string; value: unknown; at?: never; dependencies?: never } | { stamp: string; value: unknown; at: number; dependencies: ReadDependencies };

/**
 * Answers of read-only requests. An answer whose compute declared what it read (through the
 * `depend` callback it receives) is kept until a write touches one of those tables or rows,
 * or another connection commits; an unrelated write leaves it alone. An answer that declared
 * nothing is kept only while the database's change stamp is the same (any write drops it).
 * Either way an answer is stored only if nothing it depends on changed while it was
 * computed, so nothing stale is ever served. Without a stamp (PostgreSQL, where other
 * coordinators may write) nothing is cached.
 */
export class ReadCache {
  private readonly entries = new Map<string, Entry>();
  /** Sequence number of the last change seen; per table the last change of any kind, of the whole table, of each row. */
  private sequence = 0;
  private readonly lastAnyWrite = new Map<string, number>();
  private readonly lastTableWrite = new Map<string, number>();
  private readonly lastRowWrite = new Map<string, number>();
  private lastEverything = 0;

  constructor(
    private readonly changeStamp: () => string | null,
    private readonly capacity = 10_000,
    feed?: ChangeFeed,
    /** The part of the stamp that other connections move (writes through the feed are tracked finely instead). */
    private readonly externalStamp: () => string | null = changeStamp,
  ) {
    this.tracking = feed !== undefined;
    feed?.onChange((change) => this.record(change));
  }

  private readonly tracking: boolean;

  /** The cached value computed by `compute`, or computes (and keeps) it. */
  async get<T>(key: string, compute: (depend: (dependencies: ReadDependencies) => void) => Promise<T>): Promise<T> {
    // With a feed every write through this handle is counted in `sequence`, so the external
    // stamp alone (one cheap read of the database) completes the change stamp.
    const external = this.tracking ? this.externalStamp() : this.changeStamp();
    if (external === null) return compute(() => {});
    const stamp = this.tracking ? `${this.sequence}:${external}` : external;
    const kept = this.validEntry(key, external, stamp);
    if (kept) return kept.value as T;
    const at = this.sequence;
    let dependencies: ReadDependencies | undefined;
    const value = await compute((declared) => {
      dependencies = merge(dependencies, declared);
    });
    if (dependencies && this.tracking) {
      if (this.externalStamp() === external && this.unchangedSince(at, dependencies)) this.keep(key, { stamp: external, value, at, dependencies });
    } else if ((this.tracking ? `${this.sequence}:${this.externalStamp()}` : this.changeStamp()) === stamp) {
      this.keep(key, { stamp, value });
    }
    return value;
  }

  /** The kept answer for `key` if it is still valid, without computing anything (a caller that can answer at once, without a promise). */
  peek<T>(key: string): { value: T } | undefined {
    const external = this.tracking ? this.externalStamp() : this.changeStamp();
    if (external === null) return undefined;
    const kept = this.validEntry(key, external, this.tracking ? `${this.sequence}:${external}` : external);
    return kept && { value: kept.value as T };
  }

  private validEntry(key: string, external: string, stamp: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    return (entry.dependencies ? entry.stamp === external && this.unchangedSince(entry.at, entry.dependencies) : entry.stamp === stamp) ? entry : undefined;
  }

  private keep(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  private record(change: TableChange): void {
    this.sequence += 1;
    if (change.table === '*') {
      this.lastEverything = this.sequence;
      return;
    }
    this.lastAnyWrite.set(change.table, this.sequence);
    if ('rowId' in change && change.rowId !== undefined) this.lastRowWrite.set(`${change.table}\0${change.rowId}`, this.sequence);
    else this.lastTableWrite.set(change.table, this.sequence);
    if (this.lastRowWrite.size > MAX_TRACKED_ROWS) {
      // Forgetting which rows changed when is safe only if everything counts as changed now.
      this.lastRowWrite.clear();
      this.lastEverything = this.sequence;
    }
  }

  private unchangedSince(at: number, dependencies: ReadDependencies): boolean {
    if (this.lastEverything > at) return false;
    for (const table of dependencies.tables ?? []) if ((this.lastAnyWrite.get(table) ?? 0) > at) return false;
    for (const [table, ids] of Object.entries(dependencies.rows ?? {})) {
      if ((this.lastTableWrite.get(table) ?? 0) > at) return false;
      for (const id of ids) if (id !== null && (this.lastRowWrite.get(`${table}\0${id}`) ?? 0) > at) return false;
    }
    return true;
  }
}

function merge(current: ReadDependencies | undefined, next: ReadDependencies): ReadDependencies {
  if (!current) return next;
  const rows: Record<string, Array<number | null>> = {};
  for (const source of [current.rows, next.rows]) for (const [table, ids] of Object.entries(source ?? {})) rows[table] = [...(rows[table] ?? []), ...ids];
  return { tables: [...(current.tables ?? []), ...(next.tables ?? [])], rows };
}
