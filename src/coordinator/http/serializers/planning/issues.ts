import type { IssueView } from '../../../services/planning/issue-views.ts';
import { humanDuration, taskCompletion } from '../../../services/planning/issue-fields.ts';
import { serializeUserBasic, type UserBasicJson } from '../user-basic.ts';
import { serializeMilestone, type MilestoneJson } from './milestones.ts';

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
  assignee: UserBasicJson | null;
  user_notes_count: number;
  merge_requests_count: number;
  upvotes: number;
  downvotes: number;
  due_date: string | null;
  confidential: boolean;
  discussion_locked: boolean | null;
  web_url: string;
  time_stats: { time_estimate: number; total_time_spent: number; human_time_estimate: string | null; human_total_time_spent: string | null };
  task_completion_status: { count: number; completed_count: number };
  has_tasks: boolean;
  moved_to_id: number | null;
  subscribed?: boolean;
  _links?: { self: string; notes: string; award_emoji: string; project: string };
}

/**
 * GitLab's Issue entity; `single` adds `subscribed` (whether the caller is, which the route
 * works out) and `_links`. Merge requests do not exist yet: their count is 0.
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
    assignee: assignees[0] ?? null,
    user_notes_count: view.userNotesCount,
    merge_requests_count: 0,
    upvotes: view.votes.upvotes,
    downvotes: view.votes.downvotes,
    due_date: issue.due_date,
    confidential: issue.confidential,
    discussion_locked: issue.discussion_locked,
    web_url: `${externalUrl}/${view.projectPath}/-/issues/${issue.iid}`,
    time_stats: {
      time_estimate: issue.time_estimate,
      total_time_spent: issue.total_time_spent,
      human_time_estimate: humanDuration(issue.time_estimate),
      human_total_time_spent: humanDuration(issue.total_time_spent),
    },
    task_completion_status: tasks,
    has_tasks: tasks.count > 0,
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
