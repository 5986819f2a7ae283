/**
 * Answers of read-only requests, kept while the database has not changed. Every entry
 * carries the database's change stamp taken before its data was read; it is stored only
 * if the stamp is still the same afterwards, and served only while it is. Any write in
 * between (through this process or, on SQLite, another connection) therefore makes it
 * unusable: nothing stale is ever served. Without a stamp (PostgreSQL, where other
 * coordinators may write) nothing is cached.
 */
export class ReadCache {
  private readonly entries = new Map<string, { stamp: string; value: unknown }>();

  constructor(
    private readonly changeStamp: () => string | null,
    private readonly capacity = 10_000,
  ) {}

  /** The cached value computed by `compute`, or computes (and keeps) it. */
  async get<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const before = this.changeStamp();
    if (before === null) return compute();
    const entry = this.entries.get(key);
    if (entry && entry.stamp === before) return entry.value as T;
    const value = await compute();
    if (this.changeStamp() === before) {
      this.entries.delete(key);
      this.entries.set(key, { stamp: before, value });
      if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    }
    return value;
  }
}
