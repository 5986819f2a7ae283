import { sql } from '#deps/kysely';
import type { Db } from '../database.ts';
import type { TableWrites } from '../table-writes.ts';
import type { NewUserEmail, UserActivityStore, UserEmailRecord, UserEmailsStore } from '../../types-user-emails.ts';

/** Secondary e-mail addresses; no read cache depends on them. */
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

  create(email: NewUserEmail): Promise<UserEmailRecord> {
    return this.db.insertInto('user_emails').values(email).returningAll().executeTakeFirstOrThrow();
  }

  async delete(userId: number, emailId: number): Promise<boolean> {
    const result = await this.db.deleteFrom('user_emails').where('user_id', '=', userId).where('id', '=', emailId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

/** `users.last_activity_on`, written without touching `updated_at` (GitLab's activity is not an edit). */
export class SqlUserActivityStore implements UserActivityStore {
  constructor(
    private readonly db: Db,
    private readonly writes: TableWrites,
  ) {}

  async touch(userId: number, day: string): Promise<void> {
    this.writes.report({ table: 'users', rowId: userId });
    await this.db
      .updateTable('users')
      .set({ last_activity_on: day })
      .where('id', '=', userId)
      .where((eb) => eb.or([eb('last_activity_on', 'is', null), eb('last_activity_on', '<', day)]))
      .execute();
  }

  async activeSince(from: string, page: { offset: number; limit: number }): Promise<{ items: Array<{ username: string; last_activity_on: string }>; total: number }> {
    const base = this.db.selectFrom('users').where('last_activity_on', '>=', from).where('is_ghost', '=', 0);
    const rows = await base.select(['username', 'last_activity_on']).orderBy('id').offset(page.offset).limit(page.limit).execute();
    const { count } = await base.select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow();
    return { items: rows.map((row) => ({ username: row.username, last_activity_on: row.last_activity_on ?? from })), total: Number(count) };
  }
}
