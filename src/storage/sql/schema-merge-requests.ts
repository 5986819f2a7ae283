import type { Generated } from '#deps/kysely';

/** Tables of migration 030 (merge requests); part of DatabaseSchema (schema.ts). */
export interface MergeRequestsTable {
  id: Generated<number>;
  iid: number;
  /** The target project: a request lives in the project it proposes a change to. */
  project_id: number;
  /** The project holding source_branch (a fork, or project_id itself); null once that fork is deleted. */
  source_project_id: number | null;
  source_branch: string;
  target_branch: string;
  author_id: number;
  title: string;
  description: string | null;
  /** opened, closed, merged or locked (locked: a merge in progress). */
  state: string;
  /** null until set once, as on issues. */
  discussion_locked: number | null;
  milestone_id: number | null;
  time_estimate: number;
  total_time_spent: number;
  /** unchecked, checking, can_be_merged, cannot_be_merged, cannot_be_merged_recheck or cannot_be_merged_rechecking. */
  merge_status: string;
  merge_error: string | null;
  merge_when_pipeline_succeeds: number;
  /** Who set merge_when_pipeline_succeeds (and so who merges when the pipeline succeeds). */
  merge_user_id: number | null;
  /** JSON of the merge options kept for a merge that waits for its pipeline (messages, sha, squash, branch removal). */
  merge_params: string | null;
  squash: number;
  /** `remove_source_branch` of create and update: the author's wish. */
  force_remove_source_branch: number;
  /** `should_remove_source_branch` of the merge call; null when never given. */
  should_remove_source_branch: number | null;
  allow_collaboration: number;
  /** The source branch's tip when the request was last refreshed (the API's `sha`, diff_refs.head_sha). */
  head_sha: string | null;
  /** The merge base of source and target at that refresh (diff_refs.base_sha). */
  base_sha: string | null;
  /** The target branch's tip at that refresh (diff_refs.start_sha). */
  start_sha: string | null;
  head_pipeline_id: number | null;
  merge_commit_sha: string | null;
  squash_commit_sha: string | null;
  merged_at: string | null;
  merged_by_id: number | null;
  closed_at: string | null;
  closed_by_id: number | null;
  /** Bumped by every write that must not race another (merge, refresh): compare-and-set. */
  lock_version: Generated<number>;
  created_at: string;
  updated_at: string;
}

/** Migration 033: who approved a request (one row per user). */
export interface MergeRequestApprovalsTable {
  id: Generated<number>;
  merge_request_id: number;
  user_id: number;
  created_at: string;
}

export interface MergeRequestLabelsTable {
  merge_request_id: number;
  label_id: number;
  position: Generated<number>;
}

export interface MergeRequestUsersTable {
  merge_request_id: number;
  user_id: number;
  /** Order given by the caller (GitLab lists assignees and reviewers as assigned). */
  position: Generated<number>;
}

/** Migration 045: the issues a request's title or description names (`closes` 1: by a closing phrase, into the default branch). */
export interface MergeRequestIssueLinksTable {
  merge_request_id: number;
  issue_id: number;
  closes: number;
}

/** Migration 063: each version of a request's diff (GitLab's merge_request_diffs). */
export interface MergeRequestDiffVersionsTable {
  id: Generated<number>;
  merge_request_id: number;
  head_commit_sha: string;
  /** null when source and target share no history. */
  base_commit_sha: string | null;
  start_commit_sha: string;
  /** collected, empty or overflow; null until read from git (the versions the migration made). */
  state: string | null;
  real_size: string | null;
  created_at: string;
}
