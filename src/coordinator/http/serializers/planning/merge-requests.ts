import { isDraftTitle, type MergeRequestRecord } from '../../../../storage/types-merge-requests.ts';
import { taskCompletion } from '../../../services/planning/issue-fields.ts';
import { serializeLabelBasic, type LabelBasicJson } from './label-basic.ts';
import type { MergeRequestDetail } from '../../../services/planning/merge-requests/service.ts';
import type { MergeRequestView } from '../../../services/planning/merge-requests/views.ts';
import { publicMergeStatus } from '../../../services/planning/merge-requests/merge-status.ts';
import { serializeUserBasic, type UserBasicJson } from '../user-basic.ts';
import { serializeMilestone, type MilestoneJson } from './milestones.ts';
import { issuableReferences, type IssuableReferencesJson } from './references.ts';
import { serializeTimeStats, type TimeStatsJson } from './time-stats.ts';
import type { ApprovalState } from '../../../services/planning/merge-requests/approvals.ts';
import { detailedMergeStatus } from '../../../services/planning/merge-requests/detailed-merge-status.ts';

/** GitLab's IssuableEntity: the fields every merge request answer starts with. */
export interface MergeRequestBasicsJson {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string | null;
  state: string;
  created_at: string;
  updated_at: string;
}

/** `view=simple` of the lists. */
export interface MergeRequestSimpleJson extends MergeRequestBasicsJson {
  web_url: string;
}

export interface MergeRequestJson extends MergeRequestSimpleJson {
  merged_by: UserBasicJson | null;
  merge_user: UserBasicJson | null;
  merged_at: string | null;
  closed_by: UserBasicJson | null;
  closed_at: string | null;
  target_branch: string;
  source_branch: string;
  user_notes_count: number;
  upvotes: number;
  downvotes: number;
  author: UserBasicJson | null;
  assignees: UserBasicJson[];
  assignee: UserBasicJson | null;
  reviewers: UserBasicJson[];
  source_project_id: number | null;
  target_project_id: number;
  labels: string[] | LabelBasicJson[];
  draft: boolean;
  work_in_progress: boolean;
  milestone: MilestoneJson | null;
  merge_when_pipeline_succeeds: boolean;
  merge_status: string;
  detailed_merge_status: string;
  sha: string | null;
  merge_commit_sha: string | null;
  squash_commit_sha: string | null;
  discussion_locked: boolean | null;
  should_remove_source_branch: boolean | null;
  force_remove_source_branch: boolean;
  allow_collaboration?: boolean;
  allow_maintainer_to_push?: boolean;
  reference: string;
  references: IssuableReferencesJson;
  time_stats: TimeStatsJson;
  squash: boolean;
  task_completion_status: { count: number; completed_count: number };
  has_conflicts: boolean;
  blocking_discussions_resolved: boolean;
}

/** What only the single answer (show, create, update) adds. */
export interface MergeRequestSingleJson extends MergeRequestJson {
  subscribed: boolean;
  changes_count: string | null;
  latest_build_started_at: string | null;
  latest_build_finished_at: string | null;
  first_deployed_to_production_at: string | null;
  /** The head pipeline: filled by the merge request pipelines work; null until it is. */
  pipeline: null;
  head_pipeline: null;
  diff_refs: { base_sha: string; head_sha: string; start_sha: string } | null;
  merge_error: string | null;
  first_contribution: boolean;
  user: { can_merge: boolean };
}

export function serializeMergeRequestBasics(record: MergeRequestRecord): MergeRequestBasicsJson {
  return {
    id: record.id,
    iid: record.iid,
    project_id: record.project_id,
    title: record.title,
    description: record.description,
    state: record.state,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

export function serializeMergeRequestSimple(view: MergeRequestView, externalUrl: string): MergeRequestSimpleJson {
  const { record } = view;
  return {
    ...serializeMergeRequestBasics(record),
    web_url: `${externalUrl}/${view.projectPath}/-/merge_requests/${record.iid}`,
  };
}

/**
 * GitLab's MergeRequestBasic-and-MergeRequest entity of the lists (13.x–15.x field names);
 * `labelsDetails` (the lists' `with_labels_details`) shows labels as objects, not names.
 */
export function serializeMergeRequest(view: MergeRequestView, externalUrl: string, labelsDetails = false): MergeRequestJson {
  const { record } = view;
  const user = (found: MergeRequestView['author']) => (found ? serializeUserBasic(found, externalUrl) : null);
  const assignees = view.assignees.map((assignee) => serializeUserBasic(assignee, externalUrl));
  const draft = isDraftTitle(record.title);
  const forFork = record.source_project_id !== record.project_id;
  return {
    ...serializeMergeRequestSimple(view, externalUrl),
    merged_by: user(view.mergedBy),
    merge_user: user(view.mergeUser),
    merged_at: record.merged_at,
    closed_by: user(view.closedBy),
    closed_at: record.closed_at,
    target_branch: record.target_branch,
    source_branch: record.source_branch,
    user_notes_count: view.userNotesCount,
    upvotes: view.votes.upvotes,
    downvotes: view.votes.downvotes,
    author: user(view.author),
    assignees,
    assignee: assignees[0] ?? null,
    reviewers: view.reviewers.map((reviewer) => serializeUserBasic(reviewer, externalUrl)),
    source_project_id: record.source_project_id,
    target_project_id: record.project_id,
    labels: labelsDetails
      ? view.labels.map(serializeLabelBasic)
      : view.labels.map((label) => label.title),
    draft,
    work_in_progress: draft,
    milestone: view.milestone && serializeMilestone(view.milestone, externalUrl),
    merge_when_pipeline_succeeds: record.merge_when_pipeline_succeeds,
    merge_status: publicMergeStatus(record.merge_status),
    detailed_merge_status: detailedMergeStatus(record, view),
    sha: record.head_sha,
    merge_commit_sha: record.merge_commit_sha,
    squash_commit_sha: record.squash_commit_sha,
    discussion_locked: record.discussion_locked,
    should_remove_source_branch: record.should_remove_source_branch,
    force_remove_source_branch: record.force_remove_source_branch,
    // GitLab shows these two for a fork's request only.
    ...(forFork ? { allow_collaboration: record.allow_collaboration, allow_maintainer_to_push: record.allow_collaboration } : {}),
    reference: `!${record.iid}`,
    references: issuableReferences('!', record.iid, view.projectPath),
    time_stats: serializeTimeStats(record),
    squash: record.squash,
    task_completion_status: taskCompletion(record.description),
    has_conflicts: record.merge_status === 'cannot_be_merged',
    blocking_discussions_resolved: view.blockingDiscussionsResolved,
  };
}

export function serializeMergeRequestSingle(detail: MergeRequestDetail, externalUrl: string): MergeRequestSingleJson {
  const { record } = detail.view;
  const { head_sha: headSha, base_sha: baseSha, start_sha: startSha } = record;
  return {
    ...serializeMergeRequest(detail.view, externalUrl),
    subscribed: detail.subscribed,
    changes_count: detail.changesCount,
    latest_build_started_at: null,
    latest_build_finished_at: null,
    first_deployed_to_production_at: null,
    pipeline: null,
    head_pipeline: null,
    diff_refs: headSha !== null && baseSha !== null && startSha !== null ? { base_sha: baseSha, head_sha: headSha, start_sha: startSha } : null,
    merge_error: record.merge_error,
    first_contribution: detail.firstContribution,
    user: { can_merge: detail.canMerge },
  };
}

/** The answer of `GET .../approvals`: the request's basic fields, then its approvals. */
export interface MergeRequestApprovalsJson extends MergeRequestBasicsJson, Pick<MergeRequestJson, 'merge_status'> {
  approved: boolean;
  approvals_required: number;
  approvals_left: number;
  require_password_to_approve: boolean;
  approved_by: Array<{ user: UserBasicJson; approved_at: string }>;
  suggested_approvers: UserBasicJson[];
  approvers: UserBasicJson[];
  approver_groups: never[];
  user_has_approved: boolean;
  user_can_approve: boolean;
  approval_rules_left: never[];
  has_approval_rules: boolean;
  merge_request_approvers_available: boolean;
  multiple_approval_rules_available: boolean;
  invalid_approvers_rules: never[];
}

/**
 * `GET .../approvals` (and the approve answers) as GitLab's free tier answers it (danger-js reads
 * it on every run): the request's basic fields, no approval rules, who approved; `approved`
 * since none is required.
 */
export function serializeMergeRequestApprovals(state: ApprovalState, externalUrl: string): MergeRequestApprovalsJson {
  const record = state.mergeRequest;
  return {
    ...serializeMergeRequestBasics(record),
    merge_status: publicMergeStatus(record.merge_status),
    approved: true,
    approvals_required: 0,
    approvals_left: 0,
    require_password_to_approve: false,
    approved_by: state.approvedBy.map(({ user, approvedAt }) => ({ user: serializeUserBasic(user, externalUrl), approved_at: approvedAt })),
    suggested_approvers: [],
    approvers: [],
    approver_groups: [],
    user_has_approved: state.userHasApproved,
    user_can_approve: state.userCanApprove,
    approval_rules_left: [],
    has_approval_rules: false,
    merge_request_approvers_available: false,
    multiple_approval_rules_available: false,
    invalid_approvers_rules: [],
  };
}
