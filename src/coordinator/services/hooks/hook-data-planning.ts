import type { UserRecord } from '../../../storage/types.ts';
import type { MergeRequestRecord } from '../../../storage/types-merge-requests.ts';
import type { NoteRecord } from '../../../storage/types-notes.ts';
import type { IssueRecord, LabelRecord } from '../../../storage/types-planning.ts';
import { detailedMergeStatus } from '../planning/merge-requests/detailed-merge-status.ts';
import type { CiMergeCheck } from '../planning/merge-requests/ci-merge-check.ts';
import { changesBetween, humanDuration, projectHookData, projectWebUrl, repositoryHookData, userHookData, type HookProject } from './hook-data-common.ts';

/** GitLab's `object_attributes.action` of issue and merge request hooks. */
export type HookAction = 'open' | 'update' | 'close' | 'reopen' | 'merge';

/** An issue as its hook data is built: the record, its labels and assignees. */
export interface HookIssue {
  issue: IssueRecord;
  labels: readonly LabelRecord[];
  assignees: readonly UserRecord[];
}

/** A merge request as its hook data is built. */
export interface HookMergeRequest {
  record: MergeRequestRecord;
  labels: readonly LabelRecord[];
  assignees: readonly UserRecord[];
  reviewers: readonly UserRecord[];
  /** GitLab's `blocking_discussions_resolved`: the project does not require resolved threads, or none is unresolved. */
  blockingDiscussionsResolved: boolean;
  /** GitLab's `should_be_rebased?` (rebase-status.ts); read for the request as it is now. */
  needsRebase: boolean;
  /** GitLab's CI check of the head pipeline (ci-merge-check.ts); read for the request as it is now. */
  ciCheck: CiMergeCheck;
}

const STATE_IDS: Record<string, number> = { opened: 1, closed: 2, merged: 3, locked: 4 };

/** Changes GitLab lists in an issue hook's `changes` (the columns a save changed, and the relations). */
const ISSUE_CHANGE_KEYS = ['title', 'description', 'state_id', 'confidential', 'discussion_locked', 'due_date', 'milestone_id', 'closed_at', 'time_estimate', 'total_time_spent', 'labels', 'assignees', 'updated_at', 'updated_by_id'] as const;
/** A creation lists the attributes it set (from null). */
const ISSUE_CREATION_KEYS = ['id', 'iid', 'project_id', 'author_id', 'title', 'description', 'state_id', 'confidential', 'due_date', 'milestone_id', 'labels', 'assignees', 'created_at', 'updated_at'] as const;
const MERGE_REQUEST_CHANGE_KEYS = [
  'title', 'description', 'state_id', 'source_branch', 'target_branch', 'discussion_locked', 'milestone_id', 'draft', 'squash', 'time_estimate', 'total_time_spent',
  'labels', 'assignees', 'reviewers', 'merge_status', 'last_commit', 'updated_at', 'updated_by_id',
] as const;

/** GitLab's Label#hook_attrs. */
export function labelHookData(label: LabelRecord): Record<string, unknown> {
  return {
    id: label.id, title: label.title, color: label.color, project_id: label.project_id, created_at: label.created_at, updated_at: label.updated_at,
    template: false, description: label.description, type: label.project_id === null ? 'GroupLabel' : 'ProjectLabel', group_id: label.group_id,
  };
}

/** GitLab's Issue#hook_attrs (Gitlab::HookData::IssueBuilder). */
export function issueAttributes(target: HookProject, issue: HookIssue, updatedBy: UserRecord | null): Record<string, unknown> {
  const record = issue.issue;
  const assigneeIds = issue.assignees.map((user) => user.id);
  return {
    id: record.id, iid: record.iid, title: record.title, description: record.description ?? '', project_id: record.project_id,
    author_id: record.author_id, assignee_ids: assigneeIds, assignee_id: assigneeIds[0] ?? null,
    created_at: record.created_at, updated_at: record.updated_at, updated_by_id: updatedBy?.id ?? null, last_edited_at: null, last_edited_by_id: null,
    closed_at: record.closed_at, confidential: record.confidential, discussion_locked: record.discussion_locked, due_date: record.due_date,
    milestone_id: record.milestone_id, moved_to_id: record.moved_to_id, duplicated_to_id: null, relative_position: null,
    state_id: STATE_IDS[record.state] ?? 1, state: record.state,
    time_estimate: record.time_estimate, total_time_spent: record.total_time_spent, time_change: 0,
    human_time_estimate: humanDuration(record.time_estimate), human_total_time_spent: humanDuration(record.total_time_spent), human_time_change: null,
    url: `${projectWebUrl(target)}/-/issues/${record.iid}`,
    labels: issue.labels.map(labelHookData), severity: 'unknown',
  };
}

function issueChangeValues(issue: HookIssue, updatedBy: UserRecord | null): Record<string, unknown> {
  return {
    ...issue.issue, state_id: STATE_IDS[issue.issue.state] ?? 1, updated_by_id: updatedBy?.id ?? null,
    labels: issue.labels.map(labelHookData), assignees: issue.assignees.map(userHookData),
  };
}

/** The action of an issue save: created, closed, reopened or anything else. */
export function issueAction(before: IssueRecord | null, after: IssueRecord): HookAction {
  if (!before) return 'open';
  if (before.state !== after.state) return after.state === 'closed' ? 'close' : 'reopen';
  return 'update';
}

/** An issue hook's payload (`object_kind: issue`; `event_type` `confidential_issue` for a confidential one). */
export function issueHookData(target: HookProject, actor: UserRecord, before: HookIssue | null, after: HookIssue): Record<string, unknown> {
  const attributes = { ...issueAttributes(target, after, before ? actor : null), action: issueAction(before?.issue ?? null, after.issue) };
  const changes = before
    ? changesBetween({ ...issueChangeValues(before, null), updated_by_id: null }, issueChangeValues(after, actor), ISSUE_CHANGE_KEYS)
    : changesBetween({}, issueChangeValues(after, null), ISSUE_CREATION_KEYS);
  const assignees = after.assignees.map(userHookData);
  return {
    object_kind: 'issue',
    event_type: after.issue.confidential ? 'confidential_issue' : 'issue',
    user: userHookData(actor),
    project: projectHookData(target),
    object_attributes: attributes,
    labels: after.labels.map(labelHookData),
    changes,
    repository: repositoryHookData(target),
    ...(assignees.length > 0 ? { assignees, assignee: assignees[0] } : {}),
  };
}

/** GitLab's MergeRequest#hook_attrs (Gitlab::HookData::MergeRequestBuilder), without the action. */
export function mergeRequestAttributes(target: HookProject, mergeRequest: HookMergeRequest, updatedBy: UserRecord | null, source: HookProject | null): Record<string, unknown> {
  const record = mergeRequest.record;
  const assigneeIds = mergeRequest.assignees.map((user) => user.id);
  return {
    id: record.id, iid: record.iid, title: record.title, description: record.description ?? '', target_branch: record.target_branch, source_branch: record.source_branch,
    source_project_id: record.source_project_id, target_project_id: record.project_id, author_id: record.author_id,
    assignee_ids: assigneeIds, assignee_id: assigneeIds[0] ?? null, reviewer_ids: mergeRequest.reviewers.map((user) => user.id),
    created_at: record.created_at, updated_at: record.updated_at, updated_by_id: updatedBy?.id ?? null, last_edited_at: null, last_edited_by_id: null,
    merge_commit_sha: record.merge_commit_sha, merge_error: record.merge_error, merge_status: record.merge_status, detailed_merge_status: detailedMergeStatus(record, mergeRequest),
    merge_user_id: record.merge_user_id, merge_when_pipeline_succeeds: record.merge_when_pipeline_succeeds, merge_params: { force_remove_source_branch: String(record.force_remove_source_branch) },
    milestone_id: record.milestone_id, discussion_locked: record.discussion_locked, draft: /^\s*(\[draft\]|draft:|\(draft\))/i.test(record.title), work_in_progress: /^\s*(\[draft\]|draft:|\(draft\))/i.test(record.title),
    squash: record.squash, state_id: STATE_IDS[record.state] ?? 1, state: record.state, head_pipeline_id: record.head_pipeline_id, prepared_at: record.created_at,
    time_estimate: record.time_estimate, total_time_spent: record.total_time_spent, time_change: 0,
    human_time_estimate: humanDuration(record.time_estimate), human_total_time_spent: humanDuration(record.total_time_spent), human_time_change: null,
    url: `${projectWebUrl(target)}/-/merge_requests/${record.iid}`,
    source: source ? projectHookData(source) : null,
    target: projectHookData(target),
    last_commit: lastCommit(target, record),
    labels: mergeRequest.labels.map(labelHookData),
    blocking_discussions_resolved: mergeRequest.blockingDiscussionsResolved, first_contribution: false,
  };
}

/** The source tip GitLab names in `last_commit` (its id and URL; the message is read by GitLab from git, here left out). */
function lastCommit(target: HookProject, record: MergeRequestRecord): Record<string, unknown> | null {
  return record.head_sha ? { id: record.head_sha, url: `${projectWebUrl(target)}/-/commit/${record.head_sha}` } : null;
}

function mergeRequestChangeValues(target: HookProject, mergeRequest: HookMergeRequest, updatedBy: UserRecord | null): Record<string, unknown> {
  const attributes = mergeRequestAttributes(target, mergeRequest, updatedBy, null);
  return { ...attributes, assignees: mergeRequest.assignees.map(userHookData), reviewers: mergeRequest.reviewers.map(userHookData) };
}

/** The action of a merge request save: created, closed, reopened, merged, or anything else. */
export function mergeRequestAction(before: MergeRequestRecord | null, after: MergeRequestRecord): HookAction {
  if (!before) return 'open';
  if (before.state !== after.state) {
    if (after.state === 'merged') return 'merge';
    if (after.state === 'closed') return 'close';
    if (after.state === 'opened') return 'reopen';
  }
  return 'update';
}

/** A merge request hook's payload (`object_kind: merge_request`). `before` null: no changes listed; `action` null: none (a test call). */
export function mergeRequestHookData(
  target: HookProject,
  source: HookProject | null,
  actor: UserRecord,
  before: HookMergeRequest | null,
  after: HookMergeRequest,
  action: HookAction | null,
): Record<string, unknown> {
  const current = mergeRequestChangeValues(target, after, actor);
  const changes = before ? changesBetween({ ...mergeRequestChangeValues(target, before, null), updated_by_id: null }, current, MERGE_REQUEST_CHANGE_KEYS) : {};
  const assignees = after.assignees.map(userHookData);
  const reviewers = after.reviewers.map(userHookData);
  return {
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: userHookData(actor),
    project: projectHookData(target),
    object_attributes: { ...mergeRequestAttributes(target, after, before ? actor : null, source), ...(action ? { action } : {}) },
    labels: after.labels.map(labelHookData),
    changes,
    repository: repositoryHookData(target),
    ...(assignees.length > 0 ? { assignees } : {}),
    ...(reviewers.length > 0 ? { reviewers } : {}),
  };
}

/** What a note hangs on, with its own hook attributes. */
export type HookNoteable = { type: 'Issue'; attributes: Record<string, unknown> } | { type: 'MergeRequest'; attributes: Record<string, unknown> };

/**
 * A note hook's payload (`object_kind: note`); `confidential_note` for an internal note or one on
 * a confidential issue; `action` `update` for an edit (by `actor`, its `updated_by_id`).
 */
export function noteHookData(target: HookProject, actor: UserRecord, note: NoteRecord, noteable: HookNoteable, confidential: boolean, action: 'create' | 'update' = 'create'): Record<string, unknown> {
  const anchor = noteable.type === 'Issue' ? 'issues' : 'merge_requests';
  const iid = noteable.attributes.iid as number;
  return {
    object_kind: 'note',
    event_type: confidential ? 'confidential_note' : 'note',
    user: userHookData(actor),
    project_id: target.project.id,
    project: projectHookData(target),
    object_attributes: {
      id: note.id, note: note.body, noteable_type: note.noteable_type, noteable_id: note.noteable_id, author_id: note.author_id, project_id: note.project_id,
      created_at: note.created_at, updated_at: note.updated_at, updated_by_id: action === 'update' ? actor.id : null, attachment: null, line_code: null, commit_id: null, position: null,
      original_position: null, resolved_at: null, resolved_by_id: null, resolved_by_push: null, st_diff: null, system: note.system, internal: note.internal,
      confidential: note.internal, discussion_id: null, type: null, change_position: null, description: note.body, action,
      url: `${projectWebUrl(target)}/-/${anchor}/${iid}#note_${note.id}`,
    },
    repository: repositoryHookData(target),
    ...(noteable.type === 'Issue' ? { issue: noteable.attributes } : { merge_request: noteable.attributes }),
  };
}
