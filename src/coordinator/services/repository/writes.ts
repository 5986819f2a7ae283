import { GantryError } from '../../../shared/errors.ts';
import { PUSH_MESSAGES } from '../../../storage/git/hooks.ts';
import { REF_MESSAGES } from '../../../storage/git/refs.ts';
import type { GitCommit, GitFileAction, GitRepository } from '../../../storage/git/types.ts';
import type { ProjectsStore } from '../../../storage/types.ts';
import type { CoordinatorEvents } from '../events.ts';
import { checkLengths, MAX_TEXT_SIZE, type FieldLimits } from '../field-limits.ts';
import type { ProtectedBranchesService } from './protected-branches.ts';
import { branchNameProblem } from './ref-name-rules.ts';
import type { RepositoryAccess, WritableRepository } from './access.ts';

export const ZERO_SHA = '0'.repeat(40);
export const PUSH_DENIED = 'You are not allowed to push into this branch';

/**
 * Commits made through the API (commits and files): git bounds no message, so we take GitLab's
 * largest text limit (1,000,000 characters); author name and email fill 255 like a user's.
 */
export const COMMIT_LIMITS = { commit_message: MAX_TEXT_SIZE, author_name: 255, author_email: 255 } as const satisfies FieldLimits;

export interface RepositoryWriterDeps {
  access: Pick<RepositoryAccess, 'ensureRepository'>;
  branchRules: Pick<ProtectedBranchesService, 'canPush'>;
  projects: Pick<ProjectsStore, 'update'>;
  events: Pick<CoordinatorEvents, 'publishPush'>;
}

export interface CommitWrite {
  branch: string;
  startBranch?: string;
  message: string;
  authorName?: string;
  authorEmail?: string;
  actions: GitFileAction[];
  /** Aborted when the client went away: the commit stops and the branch does not move. */
  signal?: AbortSignal;
}

/**
 * Writes commits for the commits and files APIs with GitLab's branch rules (start_branch,
 * existing target branch, empty repository), then announces the push.
 */
export class RepositoryWriter {
  constructor(private readonly deps: RepositoryWriterDeps) {}

  /** GANTRY_E_BRANCH_PROTECTED unless the actor may push to `branch`. */
  async assertCanPush(target: WritableRepository, branch: string): Promise<void> {
    if (await this.deps.branchRules.canPush(target.project, target.actor, branch)) return;
    throw new GantryError('GANTRY_E_BRANCH_PROTECTED', PUSH_DENIED, { reason: PUSH_DENIED });
  }

  async commit(target: WritableRepository, write: CommitWrite): Promise<{ commit: GitCommit; repository: GitRepository }> {
    checkLengths(COMMIT_LIMITS, { commit_message: write.message, author_name: write.authorName, author_email: write.authorEmail });
    await this.assertCanPush(target, write.branch);
    const repository = await this.deps.access.ensureRepository(target, write.branch);
    const empty = await repository.isEmpty();
    const startBranch = write.startBranch ?? write.branch;
    const existing = await repository.branch(write.branch);
    if (!empty) {
      if (!(await repository.branch(startBranch))) throw new GantryError('GANTRY_E_BRANCH_NOT_FOUND', 'You can only create or edit files when you are on a branch');
      if (startBranch !== write.branch && existing) {
        throw new GantryError('GANTRY_E_BRANCH_EXISTS', `A branch called '${write.branch}' already exists. Switch to that branch in order to make changes`);
      }
    }
    const nameProblem = existing ? null : branchNameProblem(write.branch);
    if (nameProblem) {
      const reason = nameProblem === 'sha-like' ? PUSH_MESSAGES.shaBranchName : REF_MESSAGES.invalidBranchName;
      throw new GantryError('GANTRY_E_REF_NAME_INVALID', `Something went wrong when we tried to create '${write.branch}' for you: ${reason}`);
    }
    const { actor } = target;
    const commit = await repository.commitFiles({
      branch: write.branch,
      startRef: !empty && startBranch !== write.branch ? startBranch : undefined,
      message: write.message,
      author: { name: write.authorName ?? actor.name, email: write.authorEmail ?? actor.email },
      actions: write.actions,
      signal: write.signal,
    });
    await this.afterBranchWrite(target, repository, write.branch, existing?.commit.id ?? ZERO_SHA, commit.id);
    return { commit, repository };
  }

  /** Default branch for a first commit, then the push event. */
  async afterBranchWrite(target: WritableRepository, repository: GitRepository, branch: string, before: string, after: string): Promise<void> {
    if ((await repository.defaultBranch()) === null) await repository.setDefaultBranch(branch);
    if (target.project.default_branch === null) {
      await this.deps.projects.update(target.project.id, { default_branch: (await repository.defaultBranch()) ?? branch });
    }
    await this.deps.events.publishPush({ project_id: target.project.id, ref: `refs/heads/${branch}`, before, after, user_id: target.actor.id });
  }
}
