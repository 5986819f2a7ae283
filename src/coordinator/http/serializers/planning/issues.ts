import type { IssueView } from '../../../services/planning/issue-views.ts';
import { humanDuration, taskCompletion, taskStatus } from '../../../services/planning/issue-fields.ts';
import { serializeUserBasic, type UserBasicJson } from '../user-basic.ts';
import { serializeMilestone, type MilestoneJson } from './milestones.ts';
import { issuableReferences, type IssuableReferencesJson } from './references.ts';

export interface IssueJson {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string | null;
  state: string;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  closed_by: UserBasicJson | null;
  labels: string[];
  milestone: MilestoneJson | null;
  assignees: UserBasicJson[];
  author: UserBasicJson | null;
  type: 'ISSUE';
  assignee: UserBasicJson | null;
  user_notes_count: number;
  merge_requests_count: number;
  upvotes: number;
  downvotes: number;
  due_date: string | null;
  confidential: boolean;
  discussion_locked: boolean | null;
  issue_type: 'issue';
  web_url: string;
  time_stats: { time_estimate: number; total_time_spent: number; human_time_estimate: string | null; human_total_time_spent: string | null };
  task_completion_status: { count: number; completed_count: number };
  has_tasks: boolean;
  task_status: string;
  references: IssuableReferencesJson;
  severity: 'UNKNOWN';
  moved_to_id: number | null;
  subscribed?: boolean;
  _links?: { self: string; notes: string; award_emoji: string; project: string };
}

/**
 * GitLab's Issue entity; `single` adds `subscribed` (whether the caller is, which the route
 * works out) and `_links` (spec 03 gives them to the single issue only). `merge_requests_count`
 * counts the requests that close the issue on merge; `task_status` describes the description's
 * task list (GitLab's Taskable#task_status).
 */
export function serializeIssue(view: IssueView, externalUrl: string, single = false, subscribed = false): IssueJson {
  const { issue } = view;
  const user = (record: IssueView['author']) => (record ? serializeUserBasic(record, externalUrl) : null);
  const assignees = view.assignees.map((assignee) => serializeUserBasic(assignee, externalUrl));
  const tasks = taskCompletion(issue.description);
  const json: IssueJson = {
    id: issue.id,
    iid: issue.iid,
    project_id: issue.project_id,
    title: issue.title,
    description: issue.description,
    state: issue.state,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    closed_at: issue.closed_at,
    closed_by: user(view.closedBy),
    labels: view.labels,
    milestone: view.milestone && serializeMilestone(view.milestone, externalUrl),
    assignees,
    author: user(view.author),
    type: 'ISSUE',
    assignee: assignees[0] ?? null,
    user_notes_count: view.userNotesCount,
    merge_requests_count: view.mergeRequestsCount,
    upvotes: view.votes.upvotes,
    downvotes: view.votes.downvotes,
    due_date: issue.due_date,
    confidential: issue.confidential,
    discussion_locked: issue.discussion_locked,
    issue_type: 'issue',
    web_url: `${externalUrl}/${view.projectPath}/-/issues/${issue.iid}`,
    time_stats: {
      time_estimate: issue.time_estimate,
      total_time_spent: issue.total_time_spent,
      human_time_estimate: humanDuration(issue.time_estimate),
      human_total_time_spent: humanDuration(issue.total_time_spent),
    },
    task_completion_status: tasks,
    has_tasks: tasks.count > 0,
    task_status: taskStatus(issue.description),
    references: issuableReferences('#', issue.iid, view.projectPath),
    severity: 'UNKNOWN',
    moved_to_id: issue.moved_to_id,
  };
  if (!single) return json;
  const self = `${externalUrl}/api/v4/projects/${issue.project_id}/issues/${issue.iid}`;
  return {
    ...json,
    subscribed,
    _links: { self, notes: `${self}/notes`, award_emoji: `${self}/award_emoji`, project: `${externalUrl}/api/v4/projects/${issue.project_id}` },
  };
}
