import type { Logger } from '../../shared/logger.ts';
import type { CatFilePool, ObjectContents, ObjectInfo } from './cat-file.ts';
import type { HistoryCache } from './history-cache.ts';
import { parseCommit, parseTag, parseTree } from './objects.ts';
import type { GitCommit, GitTreeEntry } from './types.ts';
import { isSafeLookupPath, isSafeObjectName, isSafeRevision } from './validate.ts';

/** What every part of one repository's implementation shares. */
export interface RepositoryAccess {
  gitDir: string;
  pool: CatFilePool;
  logger: Logger;
  /** Shared by every repository of a manager. */
  history?: HistoryCache;
}

/**
 * Object reads through the repository's long-lived cat-file process. A process that died
 * between requests (killed, idle-stopped) is replaced once and the read retried.
 */
export class ObjectReader {
  constructor(private readonly access: RepositoryAccess) {}

  async info(object: string): Promise<ObjectInfo | null> {
    if (!isSafeObjectName(object)) return null;
    return this.withRetry((process) => process.info(object));
  }

  async contents(object: string): Promise<ObjectContents | null> {
    if (!isSafeObjectName(object)) return null;
    return this.withRetry((process) => process.contents(object));
  }

  async resolveCommit(revision: string): Promise<string | null> {
    if (!isSafeRevision(revision)) return null;
    return (await this.info(`${revision}^{commit}`))?.id ?? null;
  }

  async commit(revision: string): Promise<GitCommit | null> {
    if (!isSafeRevision(revision)) return null;
    const object = await this.contents(`${revision}^{commit}`);
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

  async treeObject(revision: string, path: string): Promise<ObjectInfo | null> {
    if (!isSafeRevision(revision) || !isSafeLookupPath(path)) return null;
    const info = await this.info(path === '' ? `${revision}^{tree}` : `${revision}:${path}`);
    return info && info.type === 'tree' ? info : null;
  }

  private async withRetry<T>(read: (process: ReturnType<CatFilePool['acquire']>) => Promise<T>): Promise<T> {
    try {
      return await read(this.access.pool.acquire(this.access.gitDir));
    } catch (error) {
      this.access.logger.debug({ err: error, gitDir: this.access.gitDir }, 'cat-file read failed, retrying with a new process');
      return read(this.access.pool.acquire(this.access.gitDir));
    }
  }
}
