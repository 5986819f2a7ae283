import { inTransaction, type Db } from '../database.ts';
import type { MergeRequestRecord } from '../../types-merge-requests.ts';
import type { IssueRecord } from '../../types-planning.ts';
import type { NewMergeRequestTimelog, NewTimelog, SpentTimeRefusal, TimelogsStore } from '../../types-timelogs.ts';
import { toIssue } from './issues.ts';
import { toMergeRequest } from './merge-requests.ts';

/** What `seconds` does to a total: the time logged, or why it is refused. */
function nextTotal(current: number, seconds: number | 'reset', maximum: number): { logged: number; total: number } | SpentTimeRefusal {
  const logged = seconds === 'reset' ? -current : seconds;
  const total = current + logged;
  if (total < 0) return 'exceeds_total';
  if (total > maximum) return 'over_maximum';
  return { logged, total };
}

export class SqlTimelogsStore implements TimelogsStore {
  constructor(private readonly db: Db) {}

  async addSpent(log: NewTimelog, seconds: number | 'reset', maximum: number): Promise<{ issue: IssueRecord; logged: number } | SpentTimeRefusal | undefined> {
    return inTransaction(this.db, async (trx) => {
      // The first write locks the issue row (PostgreSQL) or the database (SQLite) until commit:
      // the total read here is the one the second write moves.
      const locked = await trx.updateTable('issues').set({ updated_at: log.at }).where('id', '=', log.issue_id).returning('total_time_spent').executeTakeFirst();
      if (!locked) return undefined;
      const next = nextTotal(Number(locked.total_time_spent), seconds, maximum);
      if (typeof next === 'string') return next;
      const row = await trx.updateTable('issues').set({ total_time_spent: next.total }).where('id', '=', log.issue_id).returningAll().executeTakeFirstOrThrow();
      if (next.logged !== 0) {
        await trx
          .insertInto('timelogs')
          .values({ project_id: log.project_id, issuable_type: 'Issue', issuable_id: log.issue_id, user_id: log.user_id, time_spent: next.logged, spent_at: log.at, summary: log.summary, created_at: log.at })
          .execute();
      }
      return { issue: toIssue(row), logged: next.logged };
    });
  }

  async addSpentOnMergeRequest(log: NewMergeRequestTimelog, seconds: number | 'reset', maximum: number): Promise<{ mergeRequest: MergeRequestRecord; logged: number } | SpentTimeRefusal | undefined> {
    return inTransaction(this.db, async (trx) => {
      // As for issues: the first write locks the row, so the total read is the one moved.
      const locked = await trx.updateTable('merge_requests').set({ updated_at: log.at }).where('id', '=', log.merge_request_id).returning('total_time_spent').executeTakeFirst();
      if (!locked) return undefined;
      const next = nextTotal(Number(locked.total_time_spent), seconds, maximum);
      if (typeof next === 'string') return next;
      const row = await trx
        .updateTable('merge_requests')
        .set((eb) => ({ total_time_spent: next.total, lock_version: eb('lock_version', '+', 1) }))
        .where('id', '=', log.merge_request_id)
        .returningAll()
        .executeTakeFirstOrThrow();
      if (next.logged !== 0) {
        await trx
          .insertInto('timelogs')
          .values({ project_id: log.project_id, issuable_type: 'MergeRequest', issuable_id: log.merge_request_id, user_id: log.user_id, time_spent: next.logged, spent_at: log.at, summary: log.summary, created_at: log.at })
          .execute();
      }
      return { mergeRequest: toMergeRequest(row), logged: next.logged };
    });
  }
}
