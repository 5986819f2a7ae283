import { GantryError, validationFailed } from '../../../../shared/errors.ts';
import type { ProjectRecord, ProjectsStore } from '../../../../storage/types.ts';
import type { IssueFields } from '../issue-fields.ts';

/** How far up a fork's `forked_from` chain a target project is looked for. */
const MAX_FORK_DEPTH = 32;

/** The tip of a branch, or null when the project has no repository or no such branch. */
export interface BranchTips {
  tipOf(projectId: number, branch: string): Promise<string | null>;
}

export interface MergeRequestFieldsDeps {
  projects: Pick<ProjectsStore, 'findById'>;
  branchTips: BranchTips;
  issueFields: Pick<IssueFields, 'assigneeIds'>;
}

/** The branches, fork network and people a merge request names, checked as GitLab does. */
export class MergeRequestFields {
  constructor(private readonly deps: MergeRequestFieldsDeps) {}

  /** The source branch's tip (the request's head_sha); 400 when it does not exist. */
  async sourceTip(source: ProjectRecord, branch: string): Promise<string> {
    const tip = await this.deps.branchTips.tipOf(source.id, branch);
    if (tip === null) throw validationFailed({ source_branch: [`Source branch "${branch}" does not exist`] });
    return tip;
  }

  /** 400 when the target branch does not exist in the target project. */
  async checkTargetBranch(target: ProjectRecord, branch: string): Promise<void> {
    if ((await this.deps.branchTips.tipOf(target.id, branch)) === null) throw validationFailed({ target_branch: [`Target branch "${branch}" does not exist`] });
  }

  /** 422 when a request would merge a branch into itself. */
  checkDistinct(sourceProjectId: number | null, sourceBranch: string, targetProjectId: number, targetBranch: string): void {
    if (sourceProjectId === targetProjectId && sourceBranch === targetBranch) {
      throw new GantryError('GANTRY_E_MERGE_REQUEST_BRANCHES_REFUSED', "You can't use same project/branch for source and target");
    }
  }

  /** 422 unless the target is the source project or one it was forked from (up its forked_from chain). */
  async checkForkNetwork(source: ProjectRecord, target: ProjectRecord): Promise<void> {
    let current: ProjectRecord | undefined = source;
    for (let depth = 0; current && depth <= MAX_FORK_DEPTH; depth += 1) {
      if (current.id === target.id) return;
      current = current.forked_from_id === null ? undefined : await this.deps.projects.findById(current.forked_from_id);
    }
    throw new GantryError('GANTRY_E_MERGE_REQUEST_BRANCHES_REFUSED', 'Source project is not a fork of the target project');
  }

  /** Assignees and reviewers as GitLab's Community Edition keeps them: the first named who may read the project; 0 or none clears. */
  people(project: ProjectRecord, userIds: readonly number[]): Promise<number[]> {
    return this.deps.issueFields.assigneeIds(project, userIds);
  }
}
