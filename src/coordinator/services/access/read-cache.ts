import type { ChangeFeed, ReportedTable, TableChange } from '../../../storage/types-changes.ts';

/**
 * What a cached answer was read from: tables as a whole, and single rows of tables. Only the
 * tables whose stores report their writes can be named (storage/sql/table-writes.ts).
 */
export interface ReadDependencies {
  /** Any write to one of these tables drops the answer. */
  tables?: readonly ReportedTable[];
  /** Table → row ids: a write to one of these rows, or to the table as a whole, drops the answer. */
  rows?: Readonly<Partial<Record<ReportedTable, ReadonlyArray<number | null>>>>;
}

const MAX_TRACKED_ROWS = 100_000;

interface Entry {
  /** The external stamp when the answer was computed. */
  stamp: string;
  /** The sequence number of the last change heard of before it was computed. */
  at: number;
  dependencies: ReadDependencies;
  value: unknown;
}

/**
 * Answers of read-only requests. An answer is kept only if its compute declared what it read
 * (through the `depend` callback it receives), and until a write reported by the stores
 * touches one of those tables or rows, or another connection commits (the external stamp
 * moves); an unrelated write leaves it alone. An answer is stored only if nothing it depends
 * on changed while it was computed, so nothing stale is ever served. Without a stamp
 * (PostgreSQL, where other coordinators may write, or caching turned off) nothing is cached.
 */
export class ReadCache {
  private readonly entries = new Map<string, Entry>();
  /** Sequence number of the last change heard of; per table the last change of any kind, of the whole table, of each row. */
  private sequence = 0;
  private readonly lastAnyWrite = new Map<string, number>();
  private readonly lastTableWrite = new Map<string, number>();
  private readonly lastRowWrite = new Map<string, number>();
  private lastEverything = 0;

  constructor(
    /** Moves when another connection commits; null when that cannot be known. */
    private readonly externalStamp: () => string | null,
    feed?: ChangeFeed,
    private readonly capacity = 10_000,
  ) {
    feed?.onChange((change) => this.record(change));
  }

  /** The cached value computed by `compute`, or computes (and keeps) it. */
  async get<T>(key: string, compute: (depend: (dependencies: ReadDependencies) => void) => Promise<T>): Promise<T> {
    const stamp = this.externalStamp();
    if (stamp === null) return compute(() => {});
    const kept = this.validEntry(key, stamp);
    if (kept) return kept.value as T;
    const at = this.sequence;
    let dependencies: ReadDependencies | undefined;
    const value = await compute((declared) => {
      dependencies = merge(dependencies, declared);
    });
    if (dependencies && this.externalStamp() === stamp && this.unchangedSince(at, dependencies)) this.keep(key, { stamp, at, dependencies, value });
    return value;
  }

  /** The kept answer for `key` if it is still valid, without computing anything (a caller that can answer at once, without a promise). */
  peek<T>(key: string): { value: T } | undefined {
    const stamp = this.externalStamp();
    if (stamp === null) return undefined;
    const kept = this.validEntry(key, stamp);
    return kept && { value: kept.value as T };
  }

  private validEntry(key: string, stamp: string): Entry | undefined {
    const entry = this.entries.get(key);
    return entry && entry.stamp === stamp && this.unchangedSince(entry.at, entry.dependencies) ? entry : undefined;
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
    if (change.rowId !== undefined) this.lastRowWrite.set(`${change.table}\0${change.rowId}`, this.sequence);
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
  const rows: Partial<Record<ReportedTable, Array<number | null>>> = {};
  for (const source of [current.rows, next.rows]) {
    for (const [table, ids] of Object.entries(source ?? {}) as Array<[ReportedTable, ReadonlyArray<number | null>]>) rows[table] = [...(rows[table] ?? []), ...ids];
  }
  return { tables: [...(current.tables ?? []), ...(next.tables ?? [])], rows };
}
