import type { MergeRequestDiffVersionRecord } from '../../../../storage/types-merge-request-diff-versions.ts';

/** GitLab's Entities::MergeRequestDiff (the versions list; the single version adds `commits` and `diffs`). */
export interface MergeRequestDiffVersionJson {
  id: number;
  head_commit_sha: string;
  base_commit_sha: string | null;
  start_commit_sha: string;
  created_at: string;
  merge_request_id: number;
  state: string | null;
  real_size: string | null;
  /** GitLab's `git patch-id` of the diff; Gantry does not compute it (null, as GitLab's older versions). */
  patch_id_sha: null;
}

export function serializeMergeRequestDiffVersion(version: MergeRequestDiffVersionRecord): MergeRequestDiffVersionJson {
  return {
    id: version.id,
    head_commit_sha: version.head_commit_sha,
    base_commit_sha: version.base_commit_sha,
    start_commit_sha: version.start_commit_sha,
    created_at: version.created_at,
    merge_request_id: version.merge_request_id,
    state: version.state,
    real_size: version.real_size,
    patch_id_sha: null,
  };
}
