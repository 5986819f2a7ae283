import { ZERO_SHA } from '../../../../ci/pipeline-variables.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { RepositoryManager } from '../../../../storage/git/types.ts';
import type { MergeRequestChanges, MergeRequestRecord, MergeRequestsStore } from '../../../../storage/types-merge-requests.ts';
import type { ProjectRecord, ProjectsStore, UserRecord, UsersStore } from '../../../../storage/types.ts';
import type { PushEvent } from '../../events.ts';
import type { MergeRequestDiffVersionRecorder } from './diff-versions.ts';
import { mergeIfPushed } from './manual-merge.ts';
import { uncheckedAfter, type MergeStatusCheck } from './merge-status.ts';
import { announceMergeRequestRefreshed, type MergeRequestObserver, type MergeRequestSaved } from './observers.ts';

export interface MergeRequestRefresherDeps {
  mergeRequests: Pick<MergeRequestsStore, 'update' | 'updateIfUnchanged' | 'openBySource' | 'openByTarget'>;
  projects: Pick<ProjectsStore, 'findById'>;
  users: Pick<UsersStore, 'findById'>;
  repositories: Pick<RepositoryManager, 'open' | 'exists'>;
  mergeStatus: Pick<MergeStatusCheck, 'schedule'>;
  /** Told of every refreshed request: a new head, base or target tip is a new version of its diff. */
  diffVersions: Pick<MergeRequestDiffVersionRecorder, 'record'>;
  /** Told after every refresh (merge request pipelines listen); read when announcing, so it may be filled after construction. */
  observers: readonly MergeRequestObserver[];
  logger: Logger;
}

const BRANCH_PREFIX = 'refs/heads/';
/** The commits of one push a refresh reads for the `added N commits` note. */
export const ADDED_COMMITS_LISTED = 100;

/**
 * Reads a request's branches again (GitLab's MergeRequests::RefreshService and reload_diff):
 * the source tip — copied from the fork into the target repository when the source is a fork —
 * becomes `refs/merge-requests/<iid>/head` there and head_sha; the target tip start_sha; their
 * merge base base_sha; new refs are recorded as a new diff version; the merge status goes back
 * to `unchecked` (`cannot_be_merged_recheck` when it could not merge) and a check is queued. Runs on
 * create, reopen and retarget (as an observer) and on every push to either branch.
 */
export class MergeRequestRefresher implements MergeRequestObserver {
  constructor(private readonly deps: MergeRequestRefresherDeps) {}

  /**
   * Refreshes and announces `mergeRequestRefreshed`. `sourceMoved` is announced when head_sha
   * changed, or always with `announceSourceMoved` (a new or reopened request). A source branch
   * that is gone leaves the request's head as it was (GitLab keeps it too).
   */
  async refresh(mergeRequest: MergeRequestRecord, project: ProjectRecord, actor: UserRecord | null, options: { announceSourceMoved?: boolean; ciSkip?: boolean } = {}): Promise<MergeRequestRecord> {
    const head = (await this.sourceTip(mergeRequest, project)) ?? mergeRequest.head_sha;
    const repository = this.deps.repositories.open(project.id);
    const changes: MergeRequestChanges = { merge_status: uncheckedAfter(mergeRequest.merge_status) };
    if (head !== null) {
      await repository.setMergeRequestHead(mergeRequest.iid, head);
      const start = await repository.resolveCommit(`${BRANCH_PREFIX}${mergeRequest.target_branch}`);
      Object.assign(changes, { head_sha: head, start_sha: start, base_sha: start === null ? null : await repository.mergeBase(start, head) });
    }
    const refreshed = (await this.deps.mergeRequests.update(mergeRequest.id, changes, {})) ?? mergeRequest;
    await this.recordVersion(refreshed);
    await this.deps.mergeStatus.schedule(refreshed);
    const sourceMoved = options.announceSourceMoved === true || head !== mergeRequest.head_sha;
    const previous = mergeRequest.head_sha;
    // A new or reopened request has no previous version to add to (GitLab notes none then).
    const addedCommits = options.announceSourceMoved !== true && head !== null && previous !== null && head !== previous ? await repository.newCommits(head, [previous], ADDED_COMMITS_LISTED) : [];
    await announceMergeRequestRefreshed(this.deps.observers, { project, mergeRequest: refreshed, sourceMoved, actor, addedCommits, ...(options.ciSkip === true ? { ciSkip: true } : {}) });
    return refreshed;
  }

  /** The target branch moved: the diff stays, the merge status is decided again. */
  async recheck(mergeRequest: MergeRequestRecord, project: ProjectRecord, actor: UserRecord | null): Promise<MergeRequestRecord> {
    const rechecked = (await this.deps.mergeRequests.update(mergeRequest.id, { merge_status: uncheckedAfter(mergeRequest.merge_status) }, {})) ?? mergeRequest;
    await this.deps.mergeStatus.schedule(rechecked);
    await announceMergeRequestRefreshed(this.deps.observers, { project, mergeRequest: rechecked, sourceMoved: false, actor });
    return rechecked;
  }

  /** Created, reopened or retargeted: read the branches again. Other edits (title, labels …) change no ref. */
  async mergeRequestSaved(change: MergeRequestSaved): Promise<void> {
    const after = change.after.record;
    const before = change.before?.record ?? null;
    if (after.state !== 'opened') return;
    const opened = before === null || before.state !== 'opened';
    const branchesChanged = before !== null && (before.target_branch !== after.target_branch || before.source_branch !== after.source_branch);
    if (!opened && !branchesChanged) return;
    await this.refresh(after, change.project, change.actor, { announceSourceMoved: opened });
  }

  /**
   * For `events.onPushRecorded`: a push to a branch refreshes the open requests from it and
   * rechecks those into it — or merges one whose head the push brought in (`mergeIfPushed`) —
   * before the push is acknowledged (its merge request pipeline follows the refresh). One
   * request failing does not stop the others; it is logged.
   */
  async recordPush(push: PushEvent): Promise<void> {
    if (!push.ref.startsWith(BRANCH_PREFIX) || push.after === ZERO_SHA) return;
    const branch = push.ref.slice(BRANCH_PREFIX.length);
    const [fromBranch, intoBranch] = await Promise.all([this.deps.mergeRequests.openBySource(push.project_id, branch), this.deps.mergeRequests.openByTarget(push.project_id, branch)]);
    if (fromBranch.length === 0 && intoBranch.length === 0) return;
    const pusher = push.user_id === null ? null : ((await this.deps.users.findById(push.user_id)) ?? null);
    const projects = new Map<number, ProjectRecord | null>();
    const projectOf = async (id: number): Promise<ProjectRecord | null> => {
      if (!projects.has(id)) projects.set(id, (await this.deps.projects.findById(id)) ?? null);
      return projects.get(id) ?? null;
    };
    const work: Array<[MergeRequestRecord, 'refresh' | 'recheck']> = [...fromBranch.map((mr) => [mr, 'refresh'] as [MergeRequestRecord, 'refresh']), ...intoBranch.map((mr) => [mr, 'recheck'] as [MergeRequestRecord, 'recheck'])];
    for (const [mergeRequest, kind] of work) {
      try {
        const project = await projectOf(mergeRequest.project_id);
        if (!project || project.pending_delete) continue;
        if (kind === 'refresh') await this.refresh(mergeRequest, project, pusher, { ciSkip: push.ci_skip === true });
        else if (!(await mergeIfPushed(this.deps, this.deps.repositories.open(project.id), project, mergeRequest, push, pusher))) await this.recheck(mergeRequest, project, pusher);
      } catch (error) {
        this.deps.logger.error({ err: error, mergeRequestId: mergeRequest.id, projectId: mergeRequest.project_id }, `merge request ${kind} after a push failed`);
      }
    }
  }

  /** A version that could not be recorded is logged: the refreshed refs stand, and the next refresh records them. */
  private async recordVersion(mergeRequest: MergeRequestRecord): Promise<void> {
    try {
      await this.deps.diffVersions.record(mergeRequest);
    } catch (error) {
      this.deps.logger.error({ err: error, mergeRequestId: mergeRequest.id }, 'recording a merge request diff version failed');
    }
  }

  /** The source branch's tip, in the target repository (copied from the fork first); null when the branch or the fork is gone. */
  private async sourceTip(mergeRequest: MergeRequestRecord, project: ProjectRecord): Promise<string | null> {
    const sourceProjectId = mergeRequest.source_project_id;
    if (sourceProjectId === null || !(await this.deps.repositories.exists(sourceProjectId))) return null;
    const source = this.deps.repositories.open(sourceProjectId);
    const tip = await source.resolveCommit(`${BRANCH_PREFIX}${mergeRequest.source_branch}`);
    if (tip === null || sourceProjectId === project.id) return tip;
    const copied = await this.deps.repositories.open(project.id).fetchCommitFrom(source.path, tip);
    if (!copied) this.deps.logger.warn({ mergeRequestId: mergeRequest.id, sourceProjectId }, "a fork's merge request head could not be copied into the target repository");
    return copied ? tip : null;
  }
}
