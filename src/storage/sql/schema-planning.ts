import type { Generated } from '#deps/kysely';

/** Tables of migration 024 (labels, milestones, issues); part of DatabaseSchema (schema.ts). */
export interface GroupInternalIdsTable {
  group_id: number;
  /** `milestones`. */
  usage: string;
  last_value: number;
}

export interface LabelsTable {
  id: Generated<number>;
  /** Exactly one of project_id and group_id is set. */
  project_id: number | null;
  group_id: number | null;
  title: string;
  /** `#rrggbb`. */
  color: string;
  description: string | null;
  priority: number | null;
  created_at: string;
  updated_at: string;
}

export interface MilestonesTable {
  id: Generated<number>;
  iid: number;
  /** Exactly one of project_id and group_id is set. */
  project_id: number | null;
  group_id: number | null;
  title: string;
  description: string | null;
  state: string;
  due_date: string | null;
  start_date: string | null;
  created_at: string;
  updated_at: string;
}

export interface IssuesTable {
  id: Generated<number>;
  iid: number;
  project_id: number;
  author_id: number;
  title: string;
  description: string | null;
  state: string;
  confidential: number;
  /** null until set once (GitLab answers null, not false, for an issue never locked or unlocked). */
  discussion_locked: number | null;
  milestone_id: number | null;
  due_date: string | null;
  time_estimate: number;
  total_time_spent: number;
  closed_at: string | null;
  closed_by_id: number | null;
  created_at: string;
  updated_at: string;
  /** The issue this one was moved to (migration 026). */
  moved_to_id: number | null;
}

export interface IssueLabelsTable {
  issue_id: number;
  label_id: number;
}

export interface IssueAssigneesTable {
  issue_id: number;
  user_id: number;
}
