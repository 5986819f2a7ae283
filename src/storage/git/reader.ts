import type { Logger } from '../../shared/logger.ts';
import { CatFileClosedError, type CatFilePool, type CatFileProcess, type ObjectContents, type ObjectInfo } from './cat-file.ts';
import type { HistoryCache } from './history-cache.ts';
import { parseCommit, parseTag, parseTree } from './objects.ts';
import type { GitCommit, GitTreeEntry } from './types.ts';
import { isValidLookupPath, isValidRevision } from './validate.ts';
import type { GitClient, GitWorkQueue } from './work-queue.ts';

/** What every part of one repository's implementation shares. */
export interface RepositoryAccess {
  gitDir: string;
  pool: CatFilePool;
  logger: Logger;
  /** Heavy git work takes a slot of this queue (shared by every repository of a manager). */
  work: GitWorkQueue;
  /** For log lines. */
  projectId?: number;
  /** Who the repository was opened for: heavy work queues under its key and stops when it goes. */
  client?: GitClient;
  /** Files larger than this (bytes) are not blamed. */
  blameMaxBytes?: number;
  /** Shared by every repository of a manager. */
  history?: HistoryCache;
}

/**
 * Object reads through the repository's long-lived cat-file process. Every object name sent
 * to it is built here from a revision checked by isValidRevision (plus a checked path or a
 * `^{commit}`/`^{tree}` peel), so nothing a client sends can reach cat-file unchecked.
 */
export class ObjectReader {
  constructor(private readonly access: RepositoryAccess) {}

  /** The object a revision names (branch, tag, full ref, object id, `rev~n`); null for anything else. */
  async info(revision: string): Promise<ObjectInfo | null> {
    if (!isValidRevision(revision)) return null;
    return this.send((process) => process.info(revision));
  }

  async contents(revision: string): Promise<ObjectContents | null> {
    if (!isValidRevision(revision)) return null;
    return this.send((process) => process.contents(revision));
  }

  async resolveCommit(revision: string): Promise<string | null> {
    if (!isValidRevision(revision)) return null;
    return (await this.send((process) => process.info(`${revision}^{commit}`)))?.id ?? null;
  }

  async commit(revision: string): Promise<GitCommit | null> {
    if (!isValidRevision(revision)) return null;
    const object = await this.send((process) => process.contents(`${revision}^{commit}`));
    return object && object.type === 'commit' ? parseCommit(object.id, object.data) : null;
  }

  /** Reads many commits at once (the requests pipeline through one process), order kept. */
  async commitList(ids: readonly string[]): Promise<GitCommit[]> {
    const commits = await Promise.all(ids.map((id) => this.commit(id)));
    return commits.filter((commit): commit is GitCommit => commit !== null);
  }

  async tagObject(id: string): Promise<ReturnType<typeof parseTag> | null> {
    const object = await this.contents(id);
    return object && object.type === 'tag' ? parseTag(object.data) : null;
  }

  /** The entries of the tree at `path` in `revision`, or null when it is no tree. */
  async treeEntries(revision: string, path: string): Promise<GitTreeEntry[] | null> {
    const object = await this.treeObject(revision, path);
    if (!object) return null;
    const contents = await this.contents(object.id);
    return contents ? parseTree(contents.data, path) : null;
  }

  /** The tree at `path` (normalized: no leading or trailing slash) in `revision`. */
  async treeObject(revision: string, path: string): Promise<ObjectInfo | null> {
    if (!isValidRevision(revision) || !isValidLookupPath(path)) return null;
    const name = path === '' ? `${revision}^{tree}` : `${revision}:${path}`;
    const info = await this.send((process) => process.info(name));
    return info && info.type === 'tree' ? info : null;
  }

  /**
   * One request through the repository's process. A process stopped on purpose (idle, evicted)
   * before answering is replaced and the request sent again; one that died answers with the
   * error for the request it died on, and the pool re-sends the others itself.
   */
  private async send<T>(read: (process: CatFileProcess) => Promise<T>): Promise<T> {
    try {
      return await read(this.access.pool.acquire(this.access.gitDir));
    } catch (error) {
      if (!(error instanceof CatFileClosedError)) throw error;
      this.access.logger.debug({ gitDir: this.access.gitDir }, 'cat-file process closed before answering, asking a new one');
      return read(this.access.pool.acquire(this.access.gitDir));
    }
  }
}
