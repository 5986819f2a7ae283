import { GantryError } from '../../../../shared/errors.ts';
import type { GitRepository, RepositoryManager } from '../../../../storage/git/types.ts';
import type { MergeRequestRecord, MergeRequestsStore } from '../../../../storage/types-merge-requests.ts';
import type { ProjectRecord, ProjectsStore, UserRecord } from '../../../../storage/types.ts';
import type { CoordinatorEvents } from '../../events.ts';
import type { ProtectedBranchesService } from '../../repository/protected-branches.ts';
import type { VisibleMergeRequests } from './visible.ts';

/** GitLab's answers of the rebase (RebaseService). */
export const REBASE_MESSAGES = {
  sourceMissing: 'Source branch does not exist',
  cannotPush: 'Cannot push to source branch',
  forcePushProtected: 'Source branch is protected from force push',
  /** Stored as the request's `merge_error` when the rebase fails, as GitLab's REBASE_ERROR. */
  failed: 'Rebase failed: Rebase locally, resolve all conflicts, then push the branch.',
} as const;

export interface MergeRequestRebaseDeps {
  visible: Pick<VisibleMergeRequests, 'find'>;
  mergeRequests: Pick<MergeRequestsStore, 'update'>;
  projects: Pick<ProjectsStore, 'findById'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  branchRules: Pick<ProtectedBranchesService, 'canPush' | 'isProtected' | 'allowsForcePush'>;
  events: Pick<CoordinatorEvents, 'publishPush'>;
}

/**
 * `PUT .../rebase` (GitLab's RebaseService), done before it answers rather than in a job: the
 * source branch's own commits are replayed on the target branch's tip and the branch moved with
 * a compare-and-swap, recorded as a push to the source branch by the rebaser (the request's
 * refresh, a new merge status check, pipelines and webhooks follow from it, as from any push).
 * A rebase that fails (a conflict, a branch pushed meanwhile) leaves the branch where it was and
 * stores GitLab's message in `merge_error`, which a success clears.
 */
export class MergeRequestRebase {
  constructor(private readonly deps: MergeRequestRebaseDeps) {}

  /** `skipCi`: the rebased push carries GitLab's `ci.skip` push option (its pipelines are saved `skipped`). */
  async rebase(projectRef: string, actor: UserRecord, iid: number, options: { skipCi: boolean } = { skipCi: false }): Promise<void> {
    const { project, mergeRequest } = await this.deps.visible.find(projectRef, actor, iid);
    const source = await this.sourceOf(project, mergeRequest);
    const { branchRules } = this.deps;
    if (!(await branchRules.canPush(source.project, actor, mergeRequest.source_branch))) throw refused(REBASE_MESSAGES.cannotPush);
    // GitLab's `permits_force_push?`: an unprotected branch, or a rule that allows force pushes.
    if ((await branchRules.isProtected(source.project, mergeRequest.source_branch)) && !(await branchRules.allowsForcePush(source.project, mergeRequest.source_branch))) {
      throw refused(REBASE_MESSAGES.forcePushProtected);
    }
    if (mergeRequest.state !== 'opened') throw new GantryError('GANTRY_E_MERGE_REQUEST_REBASE_REFUSED');
    const rebased = await this.replay(project, mergeRequest, source, actor, options.skipCi);
    await this.deps.mergeRequests.update(mergeRequest.id, { merge_error: rebased ? null : REBASE_MESSAGES.failed }, {});
  }

  /** The source project, its repository and the branch's tip; 403 when the branch is gone. */
  private async sourceOf(project: ProjectRecord, mergeRequest: MergeRequestRecord): Promise<{ project: ProjectRecord; repository: GitRepository; tip: string }> {
    const { projects, repositories } = this.deps;
    const sourceProject = mergeRequest.source_project_id === project.id ? project : mergeRequest.source_project_id === null ? undefined : await projects.findById(mergeRequest.source_project_id);
    if (!sourceProject || !(await repositories.exists(sourceProject.id))) throw refused(REBASE_MESSAGES.sourceMissing);
    const repository = repositories.open(sourceProject.id);
    const branch = await repository.branch(mergeRequest.source_branch);
    if (!branch) throw refused(REBASE_MESSAGES.sourceMissing);
    return { project: sourceProject, repository, tip: branch.commit.id };
  }

  /** True when the branch now contains the target's tip (moved, or there already). */
  private async replay(project: ProjectRecord, mergeRequest: MergeRequestRecord, source: { project: ProjectRecord; repository: GitRepository; tip: string }, actor: UserRecord, skipCi: boolean): Promise<boolean> {
    const target = await this.deps.repositories.open(project.id).branch(mergeRequest.target_branch);
    if (!target) return false;
    const onto = target.commit.id;
    // A fork's repository gets the target's commits first (the refresh copies the other way).
    if (source.project.id !== project.id && !(await source.repository.fetchCommitFrom(this.deps.repositories.open(project.id).path, onto))) return false;
    if (await source.repository.isAncestor(onto, source.tip)) return true;
    const outcome = await source.repository.rebase({ branch: mergeRequest.source_branch, branchSha: source.tip, onto, committer: { name: actor.name, email: actor.email } });
    if (outcome.kind !== 'rebased') return false;
    const push = { project_id: source.project.id, ref: `refs/heads/${mergeRequest.source_branch}`, before: source.tip, after: outcome.tip, user_id: actor.id };
    await this.deps.events.publishPush(skipCi ? { ...push, ci_skip: true } : push);
    return true;
  }
}

const refused = (reason: string): GantryError => new GantryError('GANTRY_E_MERGE_REQUEST_REBASE_FORBIDDEN', reason, { reason });
