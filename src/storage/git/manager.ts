import { randomUUID } from 'node:crypto';
import { access, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../shared/logger.ts';
import { unlessMissing } from '../fs/durable.ts';
import { CatFilePool, type CatFilePoolOptions } from './cat-file.ts';
import { canonicalConfig, writeConfigFile } from './config.ts';
import { HistoryCache } from './history-cache.ts';
import { Housekeeping, type HousekeepingOptions } from './housekeeping.ts';
import { releaseHousekeepingLease, takeHousekeepingLease } from './housekeeping-lease.ts';
import { inspectRepository, projectIdOfDirectory } from './inventory.ts';
import { BareRepository } from './repository.ts';
import { runGit } from './run.ts';
import { removeStaleLocks } from './stale-locks.ts';
import type { GitClient, GitRepository, RepositoryCreateOptions, RepositoryManager, RepositoryState, StagedRepository } from './types.ts';
import { isValidRefName } from './validate.ts';
import { sharedSpawner, type ProcessSpawner } from './spawner.ts';
import { GitWorkQueue, type GitWorkQueueOptions } from './work-queue.ts';

export interface RepositoryManagerOptions {
  /** Directory holding `<projectId>.git` bare repositories. */
  root: string;
  logger: Logger;
  /** cat-file pool tuning (idle stop, process cap). */
  catFile?: Omit<CatFilePoolOptions, 'logger'>;
  /** Housekeeping timing (quiet delay, gc frequency). */
  housekeeping?: Omit<HousekeepingOptions, 'logger'>;
  /** Slots and queue bounds of heavy git work (clone, archive, blame, diff). */
  work?: GitWorkQueueOptions;
  /** Files larger than this are not blamed (GANTRY_E_BLAME_TOO_LARGE). Default 10 MiB. */
  blameMaxBytes?: number;
  /**
   * The coordinator process owning this manager's temporary files (`<root>/.tmp/<instanceId>`).
   * Default: a random id, so two managers on one root never share temporary files.
   */
  instanceId?: string;
}

/**
 * Everything temporary lives in `<root>/.tmp/<instance id>`: repositories being built
 * (renamed into place when whole), repositories being deleted, and the throw-away indexes of
 * commits. Several coordinators share the root, each in a directory of its own: what a dead
 * one left is removed by whoever notices it is gone (coordinator/repository-reconciliation.ts).
 */
const TEMPORARY = '.tmp';

/** GitLab's housekeeping lease lasts 24 hours unless its task releases it first. */
const HOUSEKEEPING_LEASE_MS = 24 * 60 * 60 * 1000;

export class GitRepositoryManager implements RepositoryManager {
  readonly pool: CatFilePool;
  readonly work: GitWorkQueue;
  /** The process's one spawner (git and the executors' processes share its helper; it is never closed). */
  readonly spawner: ProcessSpawner = sharedSpawner();
  private readonly housekeeping: Housekeeping;
  private readonly history = new HistoryCache();
  private configText: Promise<string> | undefined;
  readonly instanceId: string;

  constructor(private readonly options: RepositoryManagerOptions) {
    this.instanceId = options.instanceId ?? randomUUID();
    if (!/^[\w-]+$/.test(this.instanceId)) throw new Error(`invalid instance id ${this.instanceId}`);
    this.pool = new CatFilePool({ ...options.catFile, logger: options.logger });
    this.work = new GitWorkQueue(options.work);
    this.housekeeping = new Housekeeping({ ...options.housekeeping, logger: options.logger });
  }

  /** Where a project's bare repository lives (whether or not it exists yet). */
  repositoryPath(projectId: number): string {
    if (!Number.isSafeInteger(projectId) || projectId <= 0) throw new Error(`invalid project id ${projectId}`);
    return path.join(this.options.root, `${projectId}.git`);
  }

  /** The directory for this instance's temporary files (`<root>/.tmp/<instance id>`). */
  get temporaryDirectory(): string {
    return path.join(this.options.root, TEMPORARY, this.instanceId);
  }

  async temporaryOwners(): Promise<string[]> {
    return readdir(path.join(this.options.root, TEMPORARY)).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    });
  }

  async removeTemporaryFilesOf(owner: string): Promise<void> {
    if (owner === this.instanceId || owner.includes('/') || owner === '..' || owner === '.') throw new Error(`refusing to remove the temporary files of ${owner}`);
    await rm(path.join(this.options.root, TEMPORARY, owner), { recursive: true, force: true });
  }

  async removeStaleLocks(before: number): Promise<Array<{ projectId: number; path: string }>> {
    const removed: Array<{ projectId: number; path: string }> = [];
    for (const id of await this.repositoryIds()) {
      for (const lock of await removeStaleLocks(this.repositoryPath(id), before)) removed.push({ projectId: id, path: lock });
    }
    return removed;
  }

  /** Creates the repository unless it exists (a concurrent creation may win: that is fine). */
  async create(projectId: number, options: RepositoryCreateOptions): Promise<void> {
    const staged = await this.stage(options);
    try {
      await staged.publish(projectId);
    } catch (error) {
      if (!(await this.exists(projectId))) throw error;
    }
  }

  /**
   * Builds a new repository under `.tmp` (configured in one write, with its README commit
   * when asked); `publish` renames it into place, so `<id>.git` is never half made.
   */
  async stage(options: RepositoryCreateOptions): Promise<StagedRepository> {
    const branch = isValidRefName(options.defaultBranch) ? options.defaultBranch : 'main';
    return this.build(async (gitDir) => {
      await runGit(null, ['init', '--bare', '--quiet', `--initial-branch=${branch}`, gitDir]);
      await writeConfigFile(gitDir, await this.canonicalConfig());
      if (!options.initializeWithReadme) return null;
      await this.openAt(gitDir).commitFiles({
        branch,
        message: 'Initial commit',
        author: options.author,
        actions: [{ action: 'create', file_path: 'README.md', content: Buffer.from(`# ${options.projectName}\n`) }],
      });
      return branch;
    });
  }

  /** A copy of `sourceId`'s repository staged like `stage` (for a fork). */
  async stageFork(sourceId: number): Promise<StagedRepository> {
    const source = this.repositoryPath(sourceId);
    return this.build(async (gitDir) => {
      await runGit(null, ['clone', '--bare', '--no-local', '--quiet', '--', source, gitDir]);
      // The whole file: drops the clone's `remote "origin"` too.
      await writeConfigFile(gitDir, await this.canonicalConfig());
      return this.openAt(gitDir).defaultBranch();
    });
  }

  async fork(sourceId: number, targetId: number): Promise<void> {
    const staged = await this.stageFork(sourceId);
    await staged.publish(targetId);
  }

  async remove(projectId: number): Promise<void> {
    const target = this.repositoryPath(projectId);
    this.pool.release(target);
    this.housekeeping.forget(target);
    // Rename first: a concurrent reader sees "no repository", never a half-deleted one.
    const doomed = path.join(this.temporaryDirectory, `deleting-${projectId}-${randomUUID()}`);
    await mkdir(this.temporaryDirectory, { recursive: true });
    const moved = await rename(target, doomed).then(
      () => true,
      () => false,
    );
    await rm(moved ? doomed : target, { recursive: true, force: true });
  }

  async exists(projectId: number): Promise<boolean> {
    return unlessMissing(access(path.join(this.repositoryPath(projectId), 'HEAD')).then(() => true), false);
  }

  open(projectId: number, client?: GitClient): GitRepository {
    return this.openAt(this.repositoryPath(projectId), { projectId, client });
  }

  scheduleHousekeeping(projectId: number): void {
    this.housekeeping.schedule(this.repositoryPath(projectId));
  }

  runHousekeeping(projectId: number, options: { gc?: boolean; prune?: boolean } = {}): Promise<void> {
    return this.housekeeping.run(this.repositoryPath(projectId), options);
  }

  takeHousekeepingLease(projectId: number): Promise<boolean> {
    return takeHousekeepingLease(this.repositoryPath(projectId), Date.now(), HOUSEKEEPING_LEASE_MS);
  }

  releaseHousekeepingLease(projectId: number): Promise<void> {
    return releaseHousekeepingLease(this.repositoryPath(projectId));
  }

  /** Also removes this instance's temporary directory: nothing in it outlives the process. */
  async close(): Promise<void> {
    await this.housekeeping.close();
    this.pool.close();
    await rm(this.temporaryDirectory, { recursive: true, force: true });
  }

  /**
   * Start-up only, while no other coordinator works in the root (no git process may be
   * working there): removes older versions' leftovers (`*.deleting-*`), then reads every
   * repository. Returns what it removed and what it found. The `.tmp` directories are the
   * caller's to remove (temporaryOwners, removeTemporaryFilesOf).
   */
  async inventory(): Promise<{ removed: string[]; repositories: RepositoryState[] }> {
    const root = this.options.root;
    await mkdir(root, { recursive: true });
    const removed: string[] = [];
    const ids: number[] = [];
    for (const name of await readdir(root)) {
      const id = projectIdOfDirectory(name);
      if (id !== null) {
        ids.push(id);
      } else if (name.includes('.deleting-')) {
        await rm(path.join(root, name), { recursive: true, force: true });
        removed.push(name);
      }
    }
    const repositories: RepositoryState[] = [];
    for (let start = 0; start < ids.length; start += 64) {
      const batch = ids.slice(start, start + 64);
      repositories.push(...(await Promise.all(batch.map((id) => inspectRepository(id, this.repositoryPath(id))))));
    }
    return { removed, repositories: repositories.sort((a, b) => a.projectId - b.projectId) };
  }

  private async repositoryIds(): Promise<number[]> {
    const names = await readdir(this.options.root).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    });
    return names.map(projectIdOfDirectory).filter((id): id is number => id !== null);
  }

  /** The config file every repository has (see config.ts); compared and written whole. */
  canonicalConfig(): Promise<string> {
    this.configText ??= this.probeInitConfig().then(canonicalConfig);
    return this.configText;
  }

  /** Rewrites a repository's config file whole (it differed from the canonical one). */
  async writeCanonicalConfig(projectId: number): Promise<void> {
    await writeConfigFile(this.repositoryPath(projectId), await this.canonicalConfig());
  }

  private openAt(gitDir: string, opener: { projectId?: number; client?: GitClient } = {}): BareRepository {
    const { logger, blameMaxBytes } = this.options;
    return new BareRepository({ gitDir, pool: this.pool, logger, history: this.history, work: this.work, blameMaxBytes, ...opener }, this.temporaryDirectory);
  }

  /** Runs `build` in a fresh directory under `.tmp`; the result moves into place or is removed. */
  private async build(build: (gitDir: string) => Promise<string | null>): Promise<StagedRepository> {
    await mkdir(this.temporaryDirectory, { recursive: true });
    const gitDir = path.join(this.temporaryDirectory, `new-${randomUUID()}.git`);
    const discard = async (): Promise<void> => {
      this.pool.release(gitDir);
      await rm(gitDir, { recursive: true, force: true });
    };
    let defaultBranch: string | null;
    try {
      defaultBranch = await build(gitDir);
    } catch (error) {
      await discard();
      throw error;
    }
    // The README commit's reads ran a cat-file process on the temporary path: stop it.
    this.pool.release(gitDir);
    return {
      defaultBranch,
      publish: async (projectId) => {
        try {
          await rename(gitDir, this.repositoryPath(projectId));
        } catch (error) {
          await discard();
          throw error;
        }
      },
      discard,
    };
  }

  /** What `git init --bare` writes on this file system (format version and file-system probes). */
  private async probeInitConfig(): Promise<string> {
    await mkdir(this.temporaryDirectory, { recursive: true });
    const probe = path.join(this.temporaryDirectory, `probe-${randomUUID()}.git`);
    try {
      await runGit(null, ['init', '--bare', '--quiet', probe]);
      return await readFile(path.join(probe, 'config'), 'utf8');
    } finally {
      await rm(probe, { recursive: true, force: true });
    }
  }
}
