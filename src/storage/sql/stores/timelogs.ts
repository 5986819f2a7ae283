import { inTransaction, type Db } from '../database.ts';
import type { IssueRecord } from '../../types-planning.ts';
import type { NewTimelog, SpentTimeRefusal, TimelogsStore } from '../../types-timelogs.ts';
import { toIssue } from './issues.ts';

export class SqlTimelogsStore implements TimelogsStore {
  constructor(private readonly db: Db) {}

  async addSpent(log: NewTimelog, seconds: number | 'reset', maximum: number): Promise<{ issue: IssueRecord; logged: number } | SpentTimeRefusal | undefined> {
    return inTransaction(this.db, async (trx) => {
      // The first write locks the issue row (PostgreSQL) or the database (SQLite) until commit:
      // the total read here is the one the second write moves.
      const locked = await trx.updateTable('issues').set({ updated_at: log.at }).where('id', '=', log.issue_id).returning('total_time_spent').executeTakeFirst();
      if (!locked) return undefined;
      const current = Number(locked.total_time_spent);
      const logged = seconds === 'reset' ? -current : seconds;
      const total = current + logged;
      if (total < 0) return 'exceeds_total';
      if (total > maximum) return 'over_maximum';
      const row = await trx.updateTable('issues').set({ total_time_spent: total }).where('id', '=', log.issue_id).returningAll().executeTakeFirstOrThrow();
      if (logged !== 0) {
        await trx
          .insertInto('timelogs')
          .values({ project_id: log.project_id, issuable_type: 'Issue', issuable_id: log.issue_id, user_id: log.user_id, time_spent: logged, spent_at: log.at, summary: log.summary, created_at: log.at })
          .execute();
      }
      return { issue: toIssue(row), logged };
    });
  }
}
