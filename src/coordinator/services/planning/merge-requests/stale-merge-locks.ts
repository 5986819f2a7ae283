import type { Logger } from '../../../../shared/logger.ts';
import type { RepositoryManager } from '../../../../storage/git/types.ts';
import type { MergeRequestChanges, MergeRequestRecord, MergeRequestsStore } from '../../../../storage/types-merge-requests.ts';
import type { NewTask } from '../../../../storage/types-tasks.ts';
import { PeriodicSweep } from '../../periodic-task.ts';

export const STALE_MERGE_LOCKS_TASK = 'merge-requests.stale-locks';

/**
 * A merge holds its lock for the git write and two row updates; one held this long belongs to a
 * coordinator that died mid-merge (every git run of a merge ends well before).
 */
export const STALE_MERGE_LOCK_MS = 15 * 60_000;
/** Requests released per query. */
const BATCH = 100;

export interface StaleMergeLocksDeps {
  mergeRequests: Pick<MergeRequestsStore, 'lockedBefore' | 'updateIfUnchanged'>;
  repositories: Pick<RepositoryManager, 'open'>;
  queue: { enqueue(task: NewTask): Promise<unknown> };
  logger: Logger;
  clock?: () => number;
  /** How old a lock must be to be released (default STALE_MERGE_LOCK_MS). */
  staleAfterMs?: number;
}

/**
 * Settles merge locks nobody will finish, as GitLab's StuckMergeJobsWorker does: a request
 * `locked` longer than the stale age whose head is already on the target branch (the dead
 * coordinator moved the branch but did not record it) is marked `merged`; any other goes back
 * to `opened` with `merge_error` saying why. Both by compare-and-set (a merge that finished
 * meanwhile wins). A periodic task asks the durable queue for
 * one sweep at a time across coordinators.
 */
export class StaleMergeLocks extends PeriodicSweep {
  private readonly clock: () => number;

  constructor(private readonly deps: StaleMergeLocksDeps) {
    super(deps, STALE_MERGE_LOCKS_TASK, 'the stale merge lock sweep');
    this.clock = deps.clock ?? Date.now;
  }

  /** Settles every stale lock; answers how many. */
  override async sweep(signal?: AbortSignal): Promise<number> {
    const cutoff = new Date(this.clock() - (this.deps.staleAfterMs ?? STALE_MERGE_LOCK_MS)).toISOString();
    let released = 0;
    for (;;) {
      signal?.throwIfAborted();
      const stale = await this.deps.mergeRequests.lockedBefore(cutoff, BATCH);
      let releasedNow = 0;
      for (const mergeRequest of stale) {
        const at = new Date(this.clock()).toISOString();
        const changes: MergeRequestChanges = (await this.landed(mergeRequest))
          ? { state: 'merged', merged_at: at, merge_error: null, merge_when_pipeline_succeeds: false, updated_at: at }
          : { state: 'opened', merge_error: 'The merge was interrupted; merge again', updated_at: at };
        if (await this.deps.mergeRequests.updateIfUnchanged(mergeRequest.id, mergeRequest.lock_version, changes)) releasedNow += 1;
      }
      released += releasedNow;
      if (stale.length < BATCH || releasedNow === 0) break;
    }
    if (released > 0) this.deps.logger.warn({ released }, 'settled stale merge request locks');
    return released;
  }

  /** Whether the request's head is on its target branch (a squash merge is not recognised: its commit is new). */
  private async landed(mergeRequest: MergeRequestRecord): Promise<boolean> {
    if (mergeRequest.head_sha === null) return false;
    const repository = this.deps.repositories.open(mergeRequest.project_id);
    const tip = await repository.resolveCommit(`refs/heads/${mergeRequest.target_branch}`);
    return tip !== null && (await repository.isAncestor(mergeRequest.head_sha, tip));
  }
}
