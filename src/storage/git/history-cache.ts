import type { GitCommit } from './types.ts';

/** A bounded map; the least recently used entry goes first. */
export class LruCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly capacity = 10_000) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}

/**
 * Answers about history that never change once computed: the history behind a commit id
 * is immutable, so the number of commits reachable from it (for a path and date bounds),
 * a page of that walk and the last commit touching a path stay true forever. Walks from
 * `--all` (every branch and tag) are never cached.
 */
export class HistoryCache {
  readonly counts = new LruCache<number>();
  /** Per repository (git dir): the last plain count taken, from which nearby counts are derived. */
  readonly countAnchors = new LruCache<{ id: string; count: number }>(1_000);
  /** Commit ids of one page of a walk, keyed by its rev-list arguments (about 4 KB a page of 100). */
  readonly logPages = new LruCache<string[]>(2_000);
  /** null: no commit touches the path. */
  readonly lastCommits = new LruCache<GitCommit | null>();

  static key(gitDir: string, commitId: string, ...parts: Array<string | undefined>): string {
    return [gitDir, commitId, ...parts.map((part) => part ?? '')].join('\0');
  }
}
