/** Time logged on issues and merge requests, and the totals it keeps. */
import type { MergeRequestRecord } from './types-merge-requests.ts';
import type { IssueRecord } from './types-planning.ts';

export interface NewTimelog {
  project_id: number;
  issue_id: number;
  user_id: number;
  summary: string | null;
  at: string;
}

export interface NewMergeRequestTimelog {
  project_id: number;
  merge_request_id: number;
  user_id: number;
  summary: string | null;
  at: string;
}

/** Why time could not be logged. */
export type SpentTimeRefusal = 'exceeds_total' | 'over_maximum';

export interface TimelogsStore {
  /**
   * Logs `seconds` (negative: subtracted; 'reset': the whole total subtracted) and moves the
   * issue's total_time_spent in the same transaction, the issue row locked meanwhile. Refused
   * when the total would fall below zero or pass `maximum`; undefined when the issue is gone.
   */
  addSpent(log: NewTimelog, seconds: number | 'reset', maximum: number): Promise<{ issue: IssueRecord; logged: number } | SpentTimeRefusal | undefined>;
  /** The same for a merge request (its lock_version moves too: the change is a write like any other). */
  addSpentOnMergeRequest(log: NewMergeRequestTimelog, seconds: number | 'reset', maximum: number): Promise<{ mergeRequest: MergeRequestRecord; logged: number } | SpentTimeRefusal | undefined>;
}
