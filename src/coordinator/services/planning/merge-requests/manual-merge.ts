import { ZERO_SHA } from '../../../../ci/pipeline-variables.ts';
import type { GitRepository } from '../../../../storage/git/types.ts';
import type { MergeRequestRecord, MergeRequestsStore } from '../../../../storage/types-merge-requests.ts';
import type { ProjectRecord, UserRecord } from '../../../../storage/types.ts';
import type { PushEvent } from '../../events.ts';
import { announceMergeRequestMerged, type MergeRequestObserver } from './observers.ts';

/** The new commits of a push read to find the commit that merged a request's head. */
const PUSHED_COMMITS_READ = 1000;

export interface ManualMergeDeps {
  mergeRequests: Pick<MergeRequestsStore, 'updateIfUnchanged'>;
  observers: readonly MergeRequestObserver[];
}

/**
 * GitLab's "merged manually" (MergeRequests::RefreshService#post_merge_manually_merged): a push
 * to an open request's target branch that brings in the request's head commit merges the
 * request, with the pusher as merger, as if merged through the API. Answers the merged record,
 * or undefined when the push did not bring the head in (or another write won the
 * compare-and-set). A push by no user (the system) merges nothing.
 */
export async function mergeIfPushed(
  deps: ManualMergeDeps,
  repository: Pick<GitRepository, 'isAncestor' | 'newCommits'>,
  project: ProjectRecord,
  mergeRequest: MergeRequestRecord,
  push: PushEvent,
  pusher: UserRecord | null,
): Promise<MergeRequestRecord | undefined> {
  const head = mergeRequest.head_sha;
  if (head === null || pusher === null || push.after === ZERO_SHA) return undefined;
  if (!(await repository.isAncestor(head, push.after))) return undefined;
  if (push.before !== ZERO_SHA && (await repository.isAncestor(head, push.before))) return undefined;
  const at = new Date().toISOString();
  const merged = await deps.mergeRequests.updateIfUnchanged(mergeRequest.id, mergeRequest.lock_version, {
    state: 'merged',
    merge_commit_sha: await mergeCommitOf(repository, head, push),
    merged_at: at,
    merged_by_id: pusher.id,
    merge_when_pipeline_succeeds: false,
    merge_error: null,
    updated_at: at,
  });
  if (!merged) return undefined;
  await announceMergeRequestMerged(deps.observers, { project, mergeRequest: merged, actor: pusher, at });
  return merged;
}

/**
 * The commit of the push that brought `head` onto the branch, as GitLab's
 * BranchPushMergeCommitAnalyzer finds it: walking the branch's first parents down from the new
 * tip, `head` itself (a fast-forward) or the merge commit with `head` among its other parents;
 * null when it came in deeper (through a merge of a merge) or past the commits read.
 */
async function mergeCommitOf(repository: Pick<GitRepository, 'newCommits'>, head: string, push: PushEvent): Promise<string | null> {
  const pushed = await repository.newCommits(push.after, push.before === ZERO_SHA ? [] : [push.before], PUSHED_COMMITS_READ);
  const byId = new Map(pushed.map((commit) => [commit.id, commit]));
  for (let commit = byId.get(push.after); commit; commit = byId.get(commit.parent_ids[0] ?? '')) {
    if (commit.id === head || commit.parent_ids.slice(1).includes(head)) return commit.id;
  }
  return null;
}
