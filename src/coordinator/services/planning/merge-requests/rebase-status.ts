import type { RepositoryManager } from '../../../../storage/git/types.ts';
import { isDraftTitle, type MergeRequestRecord } from '../../../../storage/types-merge-requests.ts';
import type { ProjectRecord } from '../../../../storage/types.ts';

type Repositories = Pick<RepositoryManager, 'exists' | 'open'>;

/** GitLab's `ff_merge_must_be_possible?`: `ff` and `rebase_merge` land only a source that contains the target's tip. */
export function fastForwardRequired(project: Pick<ProjectRecord, 'merge_method'>): boolean {
  return project.merge_method !== 'merge';
}

/**
 * GitLab's `should_be_rebased?`: the project merges only what is fast-forwardable and the target
 * branch's current tip is not in the request's head (the target has commits the source lacks).
 * A missing branch or head is left to the other checks.
 */
export async function needsRebase(repositories: Repositories, project: ProjectRecord, mergeRequest: MergeRequestRecord): Promise<boolean> {
  if (!fastForwardRequired(project) || mergeRequest.head_sha === null || !(await repositories.exists(project.id))) return false;
  const repository = repositories.open(project.id);
  const targetTip = await repository.resolveCommit(`refs/heads/${mergeRequest.target_branch}`);
  if (targetTip === null) return false;
  return !(await repository.isAncestor(targetTip, mergeRequest.head_sha));
}

/**
 * The ids of `records` that `detailed_merge_status` shows as `need_rebase`: only requests every
 * earlier check lets through (open, checked mergeable, not a draft) ask git, so a page of
 * requests in a project that merges with merge commits costs no git process.
 */
export async function needingRebase(repositories: Repositories, projects: ReadonlyMap<number, ProjectRecord>, records: readonly MergeRequestRecord[]): Promise<Set<number>> {
  const candidates = records.filter((record) => record.state === 'opened' && record.merge_status === 'can_be_merged' && !isDraftTitle(record.title));
  const found = await Promise.all(
    candidates.map(async (record) => {
      const project = projects.get(record.project_id);
      return project && (await needsRebase(repositories, project, record)) ? [record.id] : [];
    }),
  );
  return new Set(found.flat());
}
