import { access, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../shared/logger.ts';
import { CatFilePool, type CatFilePoolOptions } from './cat-file.ts';
import { HistoryCache } from './history-cache.ts';
import { Housekeeping, type HousekeepingOptions } from './housekeeping.ts';
import { BareRepository } from './repository.ts';
import { runGit } from './run.ts';
import type { GitClient, GitRepository, RepositoryCreateOptions, RepositoryManager } from './types.ts';
import { isValidRefName } from './validate.ts';
import { ProcessSpawner } from './spawner.ts';
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
  /** Files larger than this are not blamed (422). Default 10 MiB. */
  blameMaxBytes?: number;
}

/**
 * Configuration of every repository we create or fork. Non-fast-forward pushes are allowed
 * here because protected branches are enforced by the pre-receive hook, not by git.
 */
const REPOSITORY_CONFIG: ReadonlyArray<[string, string]> = [
  ['core.logAllRefUpdates', 'true'],
  ['receive.denyNonFastForwards', 'false'],
  ['receive.denyDeletes', 'false'],
  ['receive.fsckObjects', 'false'],
  ['receive.advertisePushOptions', 'true'],
  ['http.receivepack', 'true'],
  ['http.uploadpack', 'true'],
  ['uploadpack.allowFilter', 'true'],
  ['uploadpack.allowAnySHA1InWant', 'true'],
  ['repack.writeBitmaps', 'true'],
  ['gc.auto', '0'],
];

export class GitRepositoryManager implements RepositoryManager {
  readonly pool: CatFilePool;
  readonly work: GitWorkQueue;
  readonly spawner = new ProcessSpawner();
  private readonly housekeeping: Housekeeping;
  private readonly history = new HistoryCache();

  constructor(private readonly options: RepositoryManagerOptions) {
    this.pool = new CatFilePool({ ...options.catFile, logger: options.logger });
    this.work = new GitWorkQueue(options.work);
    this.housekeeping = new Housekeeping({ ...options.housekeeping, logger: options.logger });
  }

  /** Where a project's bare repository lives (whether or not it exists yet). */
  repositoryPath(projectId: number): string {
    if (!Number.isSafeInteger(projectId) || projectId <= 0) throw new Error(`invalid project id ${projectId}`);
    return path.join(this.options.root, `${projectId}.git`);
  }

  async create(projectId: number, options: RepositoryCreateOptions): Promise<void> {
    const target = this.repositoryPath(projectId);
    const branch = isValidRefName(options.defaultBranch) ? options.defaultBranch : 'main';
    await mkdir(this.options.root, { recursive: true });
    await runGit(null, ['init', '--bare', '--quiet', `--initial-branch=${branch}`, target]);
    await this.configure(target);
    if (options.initializeWithReadme) {
      await this.open(projectId).commitFiles({
        branch,
        message: 'Initial commit',
        author: options.author,
        actions: [{ action: 'create', file_path: 'README.md', content: Buffer.from(`# ${options.projectName}\n`) }],
      });
    }
  }

  async remove(projectId: number): Promise<void> {
    const target = this.repositoryPath(projectId);
    this.pool.release(target);
    this.housekeeping.forget(target);
    // Rename first: a concurrent reader sees "no repository", never a half-deleted one.
    const doomed = `${target}.deleting-${Date.now()}`;
    const moved = await rename(target, doomed).then(
      () => true,
      () => false,
    );
    await rm(moved ? doomed : target, { recursive: true, force: true });
  }

  async fork(sourceId: number, targetId: number): Promise<void> {
    const source = this.repositoryPath(sourceId);
    const target = this.repositoryPath(targetId);
    await mkdir(this.options.root, { recursive: true });
    await runGit(null, ['clone', '--bare', '--no-local', '--quiet', '--', source, target]);
    await runGit(target, ['remote', 'remove', 'origin'], { allowedExitCodes: [2] });
    await this.configure(target);
  }

  async exists(projectId: number): Promise<boolean> {
    return access(path.join(this.repositoryPath(projectId), 'HEAD')).then(
      () => true,
      () => false,
    );
  }

  open(projectId: number, client?: GitClient): GitRepository {
    const { logger, blameMaxBytes } = this.options;
    return new BareRepository({ gitDir: this.repositoryPath(projectId), pool: this.pool, logger, history: this.history, work: this.work, projectId, client, blameMaxBytes });
  }

  scheduleHousekeeping(projectId: number): void {
    this.housekeeping.schedule(this.repositoryPath(projectId));
  }

  runHousekeeping(projectId: number, options: { gc?: boolean } = {}): Promise<void> {
    return this.housekeeping.run(this.repositoryPath(projectId), options);
  }

  async close(): Promise<void> {
    await this.housekeeping.close();
    this.pool.close();
    this.spawner.close();
  }

  private async configure(gitDir: string): Promise<void> {
    for (const [key, value] of REPOSITORY_CONFIG) await runGit(gitDir, ['config', key, value]);
  }
}
