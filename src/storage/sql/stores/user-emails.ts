import { sql } from '#deps/kysely';
import type { Db } from '../database.ts';
import type { NewUserEmail, UserActivityStore, UserEmailRecord, UserEmailsStore } from '../../types-user-emails.ts';

/** Secondary e-mail addresses, each claimed in email_addresses (removed with it); no read cache depends on them. */
export class SqlUserEmailsStore implements UserEmailsStore {
  constructor(private readonly db: Db) {}

  async listForUser(userId: number, page: { offset: number; limit: number }): Promise<{ items: UserEmailRecord[]; total: number }> {
    const base = this.db.selectFrom('user_emails').where('user_id', '=', userId);
    const items = await base.selectAll().orderBy('id').offset(page.offset).limit(page.limit).execute();
    const { count } = await base.select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow();
    return { items, total: Number(count) };
  }

  find(userId: number, emailId: number): Promise<UserEmailRecord | undefined> {
    return this.db.selectFrom('user_emails').selectAll().where('user_id', '=', userId).where('id', '=', emailId).executeTakeFirst();
  }

  findByEmail(email: string): Promise<UserEmailRecord | undefined> {
    return this.db.selectFrom('user_emails').selectAll().where(sql`lower(email)`, '=', email.toLowerCase()).executeTakeFirst();
  }

  async confirmedAddresses(userId: number): Promise<string[]> {
    const rows = await this.db.selectFrom('user_emails').select('email').where('user_id', '=', userId).where('confirmed_at', 'is not', null).orderBy('id').limit(100).execute();
    return rows.map((row) => row.email);
  }

  create(email: NewUserEmail): Promise<UserEmailRecord> {
    // The claim in email_addresses makes the address unique against primary addresses too.
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.insertInto('user_emails').values(email).returningAll().executeTakeFirstOrThrow();
      await trx.insertInto('email_addresses').values({ address: email.email.toLowerCase(), user_id: email.user_id, user_email_id: row.id }).execute();
      return row;
    });
  }

  async delete(userId: number, emailId: number): Promise<boolean> {
    const result = await this.db.deleteFrom('user_emails').where('user_id', '=', userId).where('id', '=', emailId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

/**
 * Users' activity days, in a table of their own: no read cache depends on it, so the write an
 * API request makes leaves cached credentials (users rows) alone.
 */
export class SqlUserActivityStore implements UserActivityStore {
  constructor(private readonly db: Db) {}

  async touch(userId: number, day: string): Promise<void> {
    await this.db
      .insertInto('user_activity_days')
      .values({ user_id: userId, day })
      .onConflict((conflict) => conflict.column('user_id').doUpdateSet({ day }).where('user_activity_days.day', '<', day))
      .execute();
  }

  async daysOf(userIds: readonly number[]): Promise<Map<number, string>> {
    if (userIds.length === 0) return new Map();
    const rows = await this.db.selectFrom('user_activity_days').select(['user_id', 'day']).where('user_id', 'in', [...new Set(userIds)]).execute();
    return new Map(rows.map((row) => [row.user_id, row.day]));
  }

  async activeSince(from: string, page: { offset: number; limit: number }): Promise<{ items: Array<{ username: string; last_activity_on: string }>; total: number }> {
    const base = this.db
      .selectFrom('user_activity_days')
      .innerJoin('users', 'users.id', 'user_activity_days.user_id')
      .where('user_activity_days.day', '>=', from)
      .where('users.is_ghost', '=', 0);
    const rows = await base.select(['users.username', 'user_activity_days.day']).orderBy('users.id').offset(page.offset).limit(page.limit).execute();
    const { count } = await base.select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow();
    return { items: rows.map((row) => ({ username: row.username, last_activity_on: row.day })), total: Number(count) };
  }
}
