import type { RepositoryManager } from '../../../../storage/git/types.ts';
import type { NewTask } from '../../../../storage/types-tasks.ts';
import type { MergeRequestRecord, MergeRequestsStore, MergeStatus } from '../../../../storage/types-merge-requests.ts';
import type { ProjectRecord, ProjectsStore } from '../../../../storage/types.ts';
import type { TaskHandler } from '../../task-queue.ts';

/** The durable task that decides a request's merge status after either branch moved. */
export const MERGE_STATUS_CHECK_TASK = 'merge-requests.check';

export interface MergeStatusCheckTask {
  mergeRequestId: number;
}

export interface MergeStatusCheckDeps {
  queue: { enqueue(task: NewTask): Promise<unknown> };
  mergeRequests: Pick<MergeRequestsStore, 'findByIds' | 'updateIfUnchanged'>;
  projects: Pick<ProjectsStore, 'findById'>;
  repositories: Pick<RepositoryManager, 'open' | 'exists'>;
}

/** A check whose write lost to another write this many times gives up: that writer scheduled its own. */
const CHECK_ATTEMPTS = 3;

/**
 * GitLab's mergeability check: `git merge-tree --write-tree` of the target branch's tip and the
 * request's head (the same merge the merge itself would make), in the target repository, where
 * a fork's head was copied by the refresh. The answer is written with compare-and-set on
 * lock_version, so a check that raced a newer refresh never overwrites it.
 */
export class MergeStatusCheck {
  constructor(private readonly deps: MergeStatusCheckDeps) {}

  /** Queues a check; one pending check per request is enough (it reads the request when it runs). */
  async schedule(mergeRequest: Pick<MergeRequestRecord, 'id'>): Promise<void> {
    const payload: MergeStatusCheckTask = { mergeRequestId: mergeRequest.id };
    await this.deps.queue.enqueue({ kind: MERGE_STATUS_CHECK_TASK, payload, maxAttempts: 5, dedupeKey: `${MERGE_STATUS_CHECK_TASK}:${mergeRequest.id}` });
  }

  handler(): TaskHandler {
    return (task) => this.process(task.payload as MergeStatusCheckTask);
  }

  /**
   * The task's work: checks an open request whose status is not decided yet (`checking` while it
   * runs, as GitLab's `mark_as_checking`); anything else is left alone.
   */
  async process(task: MergeStatusCheckTask): Promise<void> {
    const [mergeRequest] = await this.deps.mergeRequests.findByIds([task.mergeRequestId]);
    if (!mergeRequest || mergeRequest.state !== 'opened' || isDecided(mergeRequest.merge_status)) return;
    const project = await this.deps.projects.findById(mergeRequest.project_id);
    if (!project || project.pending_delete) return;
    await this.checkNow((await this.markChecking(mergeRequest)) ?? mergeRequest, project);
  }

  /**
   * `unchecked` becomes `checking`, `cannot_be_merged_recheck` `cannot_be_merged_rechecking`, as
   * GitLab's `mark_as_checking` (compare-and-set: a refresh meanwhile wins, and the check then
   * runs on its version). Undefined when nothing was written.
   */
  async markChecking(mergeRequest: MergeRequestRecord): Promise<MergeRequestRecord | undefined> {
    if (isRunning(mergeRequest.merge_status) || isDecided(mergeRequest.merge_status)) return undefined;
    const checking: MergeStatus = mergeRequest.merge_status === 'cannot_be_merged_recheck' ? 'cannot_be_merged_rechecking' : 'checking';
    return this.deps.mergeRequests.updateIfUnchanged(mergeRequest.id, mergeRequest.lock_version, { merge_status: checking });
  }

  /**
   * Checks now and stores the answer (`can_be_merged` / `cannot_be_merged`); answers the request
   * as stored afterwards. When another write changed the request meanwhile, checks that version
   * again (a few times at most).
   */
  async checkNow(mergeRequest: MergeRequestRecord, project: ProjectRecord): Promise<MergeRequestRecord> {
    let current = mergeRequest;
    for (let attempt = 0; attempt < CHECK_ATTEMPTS; attempt += 1) {
      const status = await this.mergeStatusOf(current, project);
      const saved = await this.deps.mergeRequests.updateIfUnchanged(current.id, current.lock_version, { merge_status: status });
      if (saved) return saved;
      const [fresh] = await this.deps.mergeRequests.findByIds([current.id]);
      if (!fresh) return current;
      current = fresh;
    }
    return current;
  }

  /** What the merge would do now: a clean tree, or conflicts (also: no head, no target branch, unrelated histories). */
  async mergeStatusOf(mergeRequest: MergeRequestRecord, project: ProjectRecord): Promise<MergeStatus> {
    const head = mergeRequest.head_sha;
    if (head === null || !(await this.deps.repositories.exists(project.id))) return 'cannot_be_merged';
    const repository = this.deps.repositories.open(project.id);
    const [targetTip, headCommit] = await Promise.all([repository.resolveCommit(`refs/heads/${mergeRequest.target_branch}`), repository.resolveCommit(head)]);
    if (targetTip === null || headCommit === null) return 'cannot_be_merged';
    const merge = await repository.mergeTree(targetTip, headCommit);
    return merge.clean ? 'can_be_merged' : 'cannot_be_merged';
  }
}

/**
 * The status a request takes when either branch moved (GitLab's `mark_as_unchecked`): a request
 * that could not merge becomes `cannot_be_merged_recheck` (also while that recheck runs), any
 * other `unchecked`.
 */
export function uncheckedAfter(status: MergeStatus): MergeStatus {
  const couldNotMerge = status === 'cannot_be_merged' || status === 'cannot_be_merged_recheck' || status === 'cannot_be_merged_rechecking';
  return couldNotMerge ? 'cannot_be_merged_recheck' : 'unchecked';
}

/** `merge_status` as GitLab's API shows it (`public_merge_status`): a recheck running is `checking`. */
export function publicMergeStatus(status: MergeStatus): string {
  return status === 'cannot_be_merged_rechecking' ? 'checking' : status;
}

/** Statuses a list's `with_merge_status_recheck` asks a check for: not decided, no check running. */
export function awaitsCheck(status: MergeStatus): boolean {
  return status === 'unchecked' || status === 'cannot_be_merged_recheck';
}

function isRunning(status: MergeStatus): boolean {
  return status === 'checking' || status === 'cannot_be_merged_rechecking';
}

function isDecided(status: MergeStatus): boolean {
  return status === 'can_be_merged' || status === 'cannot_be_merged';
}
