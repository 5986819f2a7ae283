/**
 * The merge request a `merge_request_event` pipeline runs for, and GitLab's
 * `CI_MERGE_REQUEST_*` variables of it (MergeRequest#predefined_variables and the
 * pipeline's own: event type, diff base, empty source/target SHAs outside merged results).
 */

export interface MergeRequestInfo {
  id: number;
  iid: number;
  /** `refs/merge-requests/<iid>/head`: the pipeline's ref in the target repository. */
  refPath: string;
  /** The target project (where the pipeline runs). */
  projectId: number;
  projectPath: string;
  projectUrl: string;
  sourceProjectId: number;
  sourceProjectPath: string;
  sourceProjectUrl: string;
  sourceBranch: string;
  targetBranch: string;
  title: string;
  /** Label titles. */
  labels: readonly string[];
  milestone: string | null;
  /** Assignee usernames, in the request's order. */
  assignees: readonly string[];
  /** Merge base of the request's diff (diff_refs.base_sha); null before its first refresh. */
  diffBaseSha: string | null;
}

export function mergeRequestRefPath(iid: number): string {
  return `refs/merge-requests/${iid}/head`;
}

/** In GitLab's order; absent ones (no labels, milestone, assignees) are left out as GitLab does. */
export function mergeRequestVariables(request: MergeRequestInfo): { key: string; value: string }[] {
  const list: [string, string | null][] = [
    ['CI_MERGE_REQUEST_ID', String(request.id)],
    ['CI_MERGE_REQUEST_IID', String(request.iid)],
    ['CI_MERGE_REQUEST_REF_PATH', request.refPath],
    ['CI_MERGE_REQUEST_PROJECT_ID', String(request.projectId)],
    ['CI_MERGE_REQUEST_PROJECT_PATH', request.projectPath],
    ['CI_MERGE_REQUEST_PROJECT_URL', request.projectUrl],
    ['CI_MERGE_REQUEST_TARGET_BRANCH_NAME', request.targetBranch],
    ['CI_MERGE_REQUEST_TITLE', request.title],
    ['CI_MERGE_REQUEST_ASSIGNEES', request.assignees.length > 0 ? request.assignees.join(',') : null],
    ['CI_MERGE_REQUEST_MILESTONE', request.milestone],
    ['CI_MERGE_REQUEST_LABELS', request.labels.length > 0 ? [...request.labels].sort().join(',') : null],
    ['CI_MERGE_REQUEST_SOURCE_BRANCH_NAME', request.sourceBranch],
    ['CI_MERGE_REQUEST_SOURCE_PROJECT_ID', String(request.sourceProjectId)],
    ['CI_MERGE_REQUEST_SOURCE_PROJECT_PATH', request.sourceProjectPath],
    ['CI_MERGE_REQUEST_SOURCE_PROJECT_URL', request.sourceProjectUrl],
    ['CI_MERGE_REQUEST_EVENT_TYPE', 'detached'],
    // Set only in merged results pipelines, which Gantry does not create: empty, as GitLab leaves them.
    ['CI_MERGE_REQUEST_SOURCE_BRANCH_SHA', ''],
    ['CI_MERGE_REQUEST_TARGET_BRANCH_SHA', ''],
    ['CI_MERGE_REQUEST_DIFF_BASE_SHA', request.diffBaseSha],
  ];
  return list.flatMap(([key, value]) => (value === null ? [] : [{ key, value }]));
}
