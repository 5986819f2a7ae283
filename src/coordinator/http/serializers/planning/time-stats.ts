import { humanDuration } from '../../../services/planning/durations.ts';
import type { IssueRecord } from '../../../../storage/types-planning.ts';

export interface TimeStatsJson {
  time_estimate: number;
  total_time_spent: number;
  human_time_estimate: string | null;
  human_total_time_spent: string | null;
}

/** GitLab's TimeStats entity: seconds, and the human forms (`3h 30m`; null for none). */
export function serializeTimeStats(issue: Pick<IssueRecord, 'time_estimate' | 'total_time_spent'>): TimeStatsJson {
  return {
    time_estimate: issue.time_estimate,
    total_time_spent: issue.total_time_spent,
    human_time_estimate: humanDuration(issue.time_estimate),
    human_total_time_spent: humanDuration(issue.total_time_spent),
  };
}
