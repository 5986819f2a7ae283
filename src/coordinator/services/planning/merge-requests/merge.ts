import { GantryError } from '../../../../shared/errors.ts';
import type { GitMergeOutcome, GitRepository, RepositoryManager } from '../../../../storage/git/types.ts';
import type { PipelinesStore } from '../../../../storage/types-ci.ts';
import type { MergeRequestRecord, MergeRequestsStore, StoredMergeParams } from '../../../../storage/types-merge-requests.ts';
import type { NamespacesStore, ProjectRecord, ProjectsStore, UserRecord, UsersStore } from '../../../../storage/types.ts';
import type { CoordinatorEvents } from '../../events.ts';
import type { ProtectedBranchesService } from '../../repository/protected-branches.ts';
import { checkLengths, MAX_TEXT_SIZE } from '../../field-limits.ts';
import { announceMergeRequestMerged, type MergeRequestObserver } from './observers.ts';
import { assertMergeableState, branchCannotBeMerged, headPipelineOf, MERGE_MESSAGES, notMergeable, openAndReady, squashOnMerge, updateWhile } from './merge-rules.ts';
import type { VisibleMergeRequests } from './visible.ts';
import { fastForwardRequired } from './rebase-status.ts';
import type { NotesStore } from '../../../../storage/types-notes.ts';
import { projectFullPath } from '../../namespaces/project-full-path.ts';

const ZERO_SHA = '0'.repeat(40);
/** A target branch that moves under a merge this many times in a row answers 406: someone is pushing faster than we merge. */
const TARGET_MOVED_RETRIES = 5;
const MESSAGE_LIMITS = { merge_commit_message: MAX_TEXT_SIZE, squash_commit_message: MAX_TEXT_SIZE } as const;

/** The options of `PUT .../merge` (also what a merge waiting for its pipeline keeps). */
export type MergeOptions = StoredMergeParams;

export interface MergeServiceDeps {
  visible: Pick<VisibleMergeRequests, 'find'>;
  mergeRequests: Pick<MergeRequestsStore, 'findByIid' | 'updateIfUnchanged' | 'update'>;
  projects: Pick<ProjectsStore, 'findById'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
  users: Pick<UsersStore, 'findById'>;
  pipelines: Pick<PipelinesStore, 'findById' | 'latestFor'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  branchRules: Pick<ProtectedBranchesService, 'canPush' | 'canMerge' | 'isProtected'>;
  events: Pick<CoordinatorEvents, 'publishPush'>;
  observers: readonly MergeRequestObserver[];
  notes: Pick<NotesStore, 'unresolvedDiscussionCounts'>;
}

/** The request's two tips as the merge sees them. */
interface Tips {
  repository: GitRepository;
  sourceSha: string;
  targetSha: string;
}

/**
 * Merges a merge request (GitLab's MergeService): the checks of `PUT .../merge` in GitLab's
 * order, the merge lock (state `locked` taken with a compare-and-set, so two merges of one
 * request cannot both run), the git merge published with a compare-and-swap on the target
 * branch (retried when another merge moved it), then the `merged` announcement (closing issues
 * first, as GitLab), the push event and the branch removal.
 */
export class MergeService {
  constructor(private readonly deps: MergeServiceDeps) {}

  /** GitLab's `can_be_merged_by?`: push or merge access to the target branch. */
  async canMerge(project: ProjectRecord, actor: UserRecord, mergeRequest: MergeRequestRecord): Promise<boolean> {
    const { branchRules } = this.deps;
    return (await branchRules.canPush(project, actor, mergeRequest.target_branch)) || branchRules.canMerge(project, actor, mergeRequest.target_branch);
  }

  async assertCanMerge(project: ProjectRecord, actor: UserRecord, mergeRequest: MergeRequestRecord): Promise<void> {
    if (!(await this.canMerge(project, actor, mergeRequest))) throw new GantryError('GANTRY_E_MERGE_NOT_PERMITTED');
  }

  /** Threads of the request with a resolvable note not resolved (GitLab's `mergeable_discussions_state?`). */
  private async unresolvedDiscussions(mergeRequest: MergeRequestRecord): Promise<number> {
    return (await this.deps.notes.unresolvedDiscussionCounts([mergeRequest.id])).get(mergeRequest.id) ?? 0;
  }

  /** The source and target tips now; 406 when either branch is gone (GitLab: the request is not mergeable). */
  async tips(project: ProjectRecord, mergeRequest: MergeRequestRecord): Promise<Tips> {
    const { repositories } = this.deps;
    if (!(await repositories.exists(project.id))) throw branchCannotBeMerged();
    const repository = repositories.open(project.id);
    const target = await repository.branch(mergeRequest.target_branch);
    const sourceSha = await this.sourceTip(repository, mergeRequest);
    if (!target || !sourceSha) throw notMergeable();
    return { repository, sourceSha, targetSha: target.commit.id };
  }

  /** The checks every merge runs, immediate or waiting for its pipeline: state, pipeline rule, threads, conflicts, rebase, sha guard. */
  async check(project: ProjectRecord, mergeRequest: MergeRequestRecord, options: MergeOptions, waitsForPipeline: boolean): Promise<Tips> {
    checkLengths(MESSAGE_LIMITS, { merge_commit_message: options.mergeCommitMessage, squash_commit_message: options.squashCommitMessage });
    if (mergeRequest.state !== 'opened') throw notMergeable();
    const tips = await this.tips(project, mergeRequest);
    const pipeline = await headPipelineOf(this.deps.pipelines, mergeRequest, tips.sourceSha);
    assertMergeableState(project, mergeRequest, pipeline, waitsForPipeline);
    if (project.only_allow_merge_if_all_discussions_are_resolved && (await this.unresolvedDiscussions(mergeRequest)) > 0) throw notMergeable();
    // GitLab's `mergeable?` refuses a merge that conflicts or a source that needs a rebase (406) before it compares the sha (409).
    if (!(await tips.repository.mergeTree(tips.targetSha, tips.sourceSha)).clean) throw branchCannotBeMerged();
    if (fastForwardRequired(project) && !(await tips.repository.isAncestor(tips.targetSha, tips.sourceSha))) throw branchCannotBeMerged();
    if (options.sha !== undefined && options.sha !== tips.sourceSha) throw new GantryError('GANTRY_E_MERGE_REQUEST_SHA_MISMATCH', MERGE_MESSAGES.shaMismatch(options.sha));
    return tips;
  }

  /**
   * GitLab's merge lock: `opened` → `locked` by compare-and-set. A background write that only
   * bumped the version (a refresh, a merge status check) is read again and the lock retried; a
   * request another merge locked, or that was closed or made a draft meanwhile, answers 405.
   */
  private async takeLock(mergeRequest: MergeRequestRecord, squash: boolean): Promise<MergeRequestRecord> {
    // updated_at dates the lock: a lock older than STALE_MERGE_LOCK_MS is released (stale-merge-locks.ts).
    const locked = await updateWhile(this.deps.mergeRequests, mergeRequest, openAndReady, { state: 'locked', squash, updated_at: new Date().toISOString() });
    if (!locked) throw notMergeable();
    return locked;
  }

  /** `PUT .../merge` without merge_when_pipeline_succeeds. */
  async merge(projectRef: string, actor: UserRecord, iid: number, options: MergeOptions): Promise<MergeRequestRecord> {
    const { project, mergeRequest } = await this.deps.visible.find(projectRef, actor, iid);
    await this.assertCanMerge(project, actor, mergeRequest);
    await this.check(project, mergeRequest, options, false);
    return this.mergeChecked(project, mergeRequest, actor, options);
  }

  /**
   * Takes the merge lock, writes the merge and records it. `mergeRequest` must have passed
   * `check`; the lock's compare-and-set makes a concurrent change (another merge, a close) win
   * and this one answer 405.
   */
  async mergeChecked(project: ProjectRecord, mergeRequest: MergeRequestRecord, actor: UserRecord, options: MergeOptions): Promise<MergeRequestRecord> {
    const merged = await this.mergeCheckedIf(project, mergeRequest, actor, options, async () => true);
    if (!merged) throw notMergeable();
    return merged;
  }

  /**
   * `mergeChecked`, with `stillHolds` asked once the lock is taken and before anything is
   * written: false gives the lock back and answers undefined (nothing merged). The automatic
   * merge asks whether the pipeline it read is still green, so no merge lands on a pipeline
   * that failed meanwhile.
   */
  async mergeCheckedIf(project: ProjectRecord, mergeRequest: MergeRequestRecord, actor: UserRecord, options: MergeOptions, stillHolds: () => Promise<boolean>): Promise<MergeRequestRecord | undefined> {
    const squash = squashOnMerge(project, options.squash ?? mergeRequest.squash);
    const locked = await this.takeLock(mergeRequest, squash);
    if (!(await stillHolds().catch(async (error: unknown) => {
      await this.deps.mergeRequests.update(locked.id, { state: 'opened' }, {});
      throw error;
    }))) {
      await this.deps.mergeRequests.update(locked.id, { state: 'opened' }, {});
      return undefined;
    }
    let outcome: Extract<GitMergeOutcome, { kind: 'merged' }>;
    let targetBefore: string;
    let repository: GitRepository;
    try {
      ({ outcome, targetBefore, repository } = await this.write(project, locked, actor, options, squash));
    } catch (error) {
      await this.deps.mergeRequests.update(locked.id, { state: 'opened' }, {});
      throw error;
    }
    const at = new Date().toISOString();
    const merged = await this.deps.mergeRequests.update(
      locked.id,
      {
        state: 'merged',
        merge_commit_sha: outcome.tip,
        squash_commit_sha: outcome.squashCommitSha,
        merged_at: at,
        merged_by_id: actor.id,
        merge_when_pipeline_succeeds: false,
        merge_error: null,
        updated_at: at,
        ...(options.shouldRemoveSourceBranch === undefined ? {} : { should_remove_source_branch: options.shouldRemoveSourceBranch }),
      },
      {},
    );
    if (!merged) throw new GantryError('GANTRY_E_MERGE_REQUEST_NOT_FOUND');
    try {
      // GitLab's PostMergeService runs before the merge's push is processed: the request closes
      // its issues first, so an issue its own commit closes too reads "closed via merge request".
      await announceMergeRequestMerged(this.deps.observers, { project, mergeRequest: merged, actor, at });
    } finally {
      await this.deps.events.publishPush({ project_id: project.id, ref: `refs/heads/${merged.target_branch}`, before: targetBefore, after: outcome.tip, user_id: actor.id });
      if (this.removesSourceBranch(merged, options)) await this.removeSourceBranch(project, merged, actor, repository);
    }
    return merged;
  }

  /** The git part: squash, merge or fast-forward onto the target tip, again on a moved target. */
  private async write(project: ProjectRecord, mergeRequest: MergeRequestRecord, actor: UserRecord, options: MergeOptions, squash: boolean) {
    const fullPath = await projectFullPath(this.deps.namespaces, project);
    const identity = { name: actor.name, email: actor.email };
    const author = await this.squashAuthor(mergeRequest, actor);
    for (let attempt = 0; attempt < TARGET_MOVED_RETRIES; attempt += 1) {
      const { repository, sourceSha, targetSha } = await this.tips(project, mergeRequest);
      if (options.sha !== undefined && options.sha !== sourceSha) throw new GantryError('GANTRY_E_MERGE_REQUEST_SHA_MISMATCH', MERGE_MESSAGES.shaMismatch(options.sha));
      const outcome = await repository.merge({
        targetBranch: mergeRequest.target_branch,
        targetSha,
        sourceSha,
        method: project.merge_method,
        mergeMessage: options.mergeCommitMessage ?? defaultMergeMessage(mergeRequest, fullPath),
        squash: squash ? { message: options.squashCommitMessage ?? mergeRequest.title, author } : null,
        committer: identity,
      });
      if (outcome.kind === 'merged') return { outcome, targetBefore: targetSha, repository };
      if (outcome.kind !== 'target-moved') throw branchCannotBeMerged();
    }
    throw branchCannotBeMerged();
  }

  private removesSourceBranch(mergeRequest: MergeRequestRecord, options: MergeOptions): boolean {
    return options.shouldRemoveSourceBranch ?? mergeRequest.should_remove_source_branch ?? mergeRequest.force_remove_source_branch;
  }

  /**
   * Deletes the merged source branch when the merger may (GitLab's `can_remove_source_branch?`):
   * not the source project's default branch, not protected, and the merger may push to it.
   */
  private async removeSourceBranch(project: ProjectRecord, mergeRequest: MergeRequestRecord, actor: UserRecord, targetRepository: GitRepository): Promise<void> {
    const sourceProject = mergeRequest.source_project_id === project.id ? project : mergeRequest.source_project_id === null ? undefined : await this.deps.projects.findById(mergeRequest.source_project_id);
    if (!sourceProject || sourceProject.default_branch === mergeRequest.source_branch) return;
    const { branchRules } = this.deps;
    if ((await branchRules.isProtected(sourceProject, mergeRequest.source_branch)) || !(await branchRules.canPush(sourceProject, actor, mergeRequest.source_branch))) return;
    const repository = sourceProject.id === project.id ? targetRepository : this.deps.repositories.open(sourceProject.id);
    const branch = await repository.branch(mergeRequest.source_branch);
    if (!branch || !(await repository.deleteBranch(mergeRequest.source_branch))) return;
    await this.deps.events.publishPush({ project_id: sourceProject.id, ref: `refs/heads/${mergeRequest.source_branch}`, before: branch.commit.id, after: ZERO_SHA, user_id: actor.id });
  }

  /**
   * The source tip, in the target repository: the branch itself for a request inside one
   * project; for a fork, `refs/merge-requests/<iid>/head`, which the refresh keeps there.
   */
  private async sourceTip(repository: GitRepository, mergeRequest: MergeRequestRecord): Promise<string | null> {
    if (mergeRequest.source_project_id === mergeRequest.project_id) return (await repository.branch(mergeRequest.source_branch))?.commit.id ?? null;
    return repository.resolveCommit(`refs/merge-requests/${mergeRequest.iid}/head`);
  }

  /** GitLab writes a squash commit as the request's author. */
  private async squashAuthor(mergeRequest: MergeRequestRecord, actor: UserRecord): Promise<{ name: string; email: string }> {
    const author = mergeRequest.author_id === actor.id ? actor : await this.deps.users.findById(mergeRequest.author_id);
    return author ? { name: author.name, email: author.email } : { name: actor.name, email: actor.email };
  }
}

/** GitLab's default merge commit message. */
export function defaultMergeMessage(mergeRequest: MergeRequestRecord, targetFullPath: string): string {
  return `Merge branch '${mergeRequest.source_branch}' into '${mergeRequest.target_branch}'\n\n${mergeRequest.title}\n\nSee merge request ${targetFullPath}!${mergeRequest.iid}`;
}
