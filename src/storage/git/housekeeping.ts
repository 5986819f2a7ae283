import type { Logger } from '../../shared/logger.ts';
import { runGit } from './run.ts';

/** Unreachable objects younger than this are kept by a prune (GitLab's Gitaly keeps 30 minutes too). */
const PRUNE_EXPIRY = '30.minutes.ago';

export interface HousekeepingOptions {
  logger: Logger;
  /** Quiet time after the last write before housekeeping runs. */
  delayMs?: number;
  /** Every this many runs of one repository is a full `git gc` (repack with bitmaps). */
  gcEvery?: number;
}

/**
 * Keeps repositories fast as pushes land (automatic gc is off in our repositories):
 * a commit-graph with changed-path Bloom filters after every burst of writes (commit
 * counts and path-limited history walk it instead of parsing commits), and now and
 * then a full `git gc`, which repacks with a reachability bitmap (instant counts).
 */
export class Housekeeping {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly runs = new Map<string, number>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly delayMs: number;
  private readonly gcEvery: number;

  constructor(private readonly options: HousekeepingOptions) {
    this.delayMs = options.delayMs ?? 2_000;
    this.gcEvery = options.gcEvery ?? 25;
  }

  /** Runs housekeeping for the repository once writes have been quiet for a while. */
  schedule(gitDir: string): void {
    clearTimeout(this.timers.get(gitDir));
    const timer = setTimeout(() => {
      this.timers.delete(gitDir);
      void this.run(gitDir);
    }, this.delayMs);
    timer.unref();
    this.timers.set(gitDir, timer);
  }

  /**
   * Runs housekeeping now (after any run in progress); failures are logged, never thrown.
   * `prune` repacks everything into one pack (`repack -A -d`) and then removes unreachable
   * loose objects older than PRUNE_EXPIRY: a push in flight has written its objects but not yet
   * its ref, and those objects must survive.
   */
  async run(gitDir: string, options: { gc?: boolean; prune?: boolean } = {}): Promise<void> {
    const previous = this.running.get(gitDir) ?? Promise.resolve();
    const next = previous.then(() => this.optimize(gitDir, options.gc, options.prune));
    this.running.set(gitDir, next);
    await next;
    if (this.running.get(gitDir) === next) this.running.delete(gitDir);
  }

  /** Forgets a repository (removed): pending runs are dropped. */
  forget(gitDir: string): void {
    clearTimeout(this.timers.get(gitDir));
    this.timers.delete(gitDir);
    this.runs.delete(gitDir);
  }

  async close(): Promise<void> {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.all(this.running.values());
  }

  private async optimize(gitDir: string, forceGc = false, prune = false): Promise<void> {
    const count = (this.runs.get(gitDir) ?? 0) + 1;
    this.runs.set(gitDir, count);
    try {
      if (prune) {
        await runGit(gitDir, ['repack', '-A', '-d', '--quiet'], { lowPriority: true });
        await runGit(gitDir, ['prune', `--expire=${PRUNE_EXPIRY}`], { lowPriority: true });
      } else if (forceGc || count % this.gcEvery === 0) {
        await runGit(gitDir, ['-c', 'gc.writeCommitGraph=false', 'gc', '--quiet']);
      }
      await runGit(gitDir, ['commit-graph', 'write', '--reachable', '--changed-paths', '--split']);
    } catch (error) {
      this.options.logger.warn({ err: error, gitDir }, 'repository housekeeping failed');
    }
  }
}
