import type { MergeRequestRecord } from '../../../../storage/types-merge-requests.ts';
import { isDraftTitle } from '../../../services/planning/merge-requests/drafts.ts';
import { publicMergeStatus } from '../../../services/planning/merge-requests/merge-status.ts';

/**
 * A merge request as the activity answers show it (a todo's target, a subscribe's answer):
 * the fields of GitLab's MergeRequestBasic that a request row holds. A stand-in until the merge
 * request serializer (serializers/planning/merge-requests.ts) is on main: then these answers
 * call it instead, and this file goes.
 */
export interface MergeRequestTargetJson {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string | null;
  state: string;
  created_at: string;
  updated_at: string;
  merged_at: string | null;
  closed_at: string | null;
  target_branch: string;
  source_branch: string;
  target_project_id: number;
  source_project_id: number | null;
  draft: boolean;
  work_in_progress: boolean;
  merge_when_pipeline_succeeds: boolean;
  merge_status: string;
  sha: string | null;
  merge_commit_sha: string | null;
  squash_commit_sha: string | null;
  discussion_locked: boolean | null;
  squash: boolean;
  time_stats: { time_estimate: number; total_time_spent: number };
  web_url: string;
  subscribed?: boolean;
}

export function serializeMergeRequestTarget(mergeRequest: MergeRequestRecord, projectPath: string, externalUrl: string, subscribed?: boolean): MergeRequestTargetJson {
  const draft = isDraftTitle(mergeRequest.title);
  return {
    id: mergeRequest.id,
    iid: mergeRequest.iid,
    project_id: mergeRequest.project_id,
    title: mergeRequest.title,
    description: mergeRequest.description,
    state: mergeRequest.state,
    created_at: mergeRequest.created_at,
    updated_at: mergeRequest.updated_at,
    merged_at: mergeRequest.merged_at,
    closed_at: mergeRequest.closed_at,
    target_branch: mergeRequest.target_branch,
    source_branch: mergeRequest.source_branch,
    target_project_id: mergeRequest.project_id,
    source_project_id: mergeRequest.source_project_id,
    draft,
    work_in_progress: draft,
    merge_when_pipeline_succeeds: mergeRequest.merge_when_pipeline_succeeds,
    merge_status: publicMergeStatus(mergeRequest.merge_status),
    sha: mergeRequest.head_sha,
    merge_commit_sha: mergeRequest.merge_commit_sha,
    squash_commit_sha: mergeRequest.squash_commit_sha,
    discussion_locked: mergeRequest.discussion_locked,
    squash: mergeRequest.squash,
    time_stats: { time_estimate: mergeRequest.time_estimate, total_time_spent: mergeRequest.total_time_spent },
    web_url: `${externalUrl}/${projectPath}/-/merge_requests/${mergeRequest.iid}`,
    ...(subscribed === undefined ? {} : { subscribed }),
  };
}
