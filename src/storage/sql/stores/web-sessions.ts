import { sql } from '#deps/kysely';
import type { Db } from '../database.ts';
import type { SignInFailures, WebSessionRecord, WebSessionsStore } from '../../types-web-sessions.ts';

export class SqlWebSessionsStore implements WebSessionsStore {
  constructor(private readonly db: Db) {}

  async create(session: WebSessionRecord): Promise<void> {
    await this.db.insertInto('web_sessions').values(session).execute();
  }

  async findActive(idDigest: string, now: string): Promise<WebSessionRecord | undefined> {
    const row = await this.db.selectFrom('web_sessions').selectAll().where('id_digest', '=', idDigest).where('expires_at', '>', now).executeTakeFirst();
    return row && { ...row, user_id: Number(row.user_id) };
  }

  async delete(idDigest: string): Promise<void> {
    await this.db.deleteFrom('web_sessions').where('id_digest', '=', idDigest).execute();
  }

  async deleteExpired(now: string): Promise<number> {
    const result = await this.db.deleteFrom('web_sessions').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async failuresOf(login: string, now: string): Promise<SignInFailures | undefined> {
    const row = await this.db.selectFrom('web_sign_in_failures').select(['failures', 'window_ends_at']).where('login', '=', login).where('window_ends_at', '>', now).executeTakeFirst();
    return row && { failures: Number(row.failures), window_ends_at: row.window_ends_at };
  }

  async recordFailure(login: string, now: string, windowEndsAt: string): Promise<SignInFailures> {
    // One statement, so that concurrent failures from several coordinators all count.
    const { rows } = await sql<{ failures: number; window_ends_at: string }>`
      INSERT INTO web_sign_in_failures AS f (login, failures, window_ends_at)
      VALUES (${login}, 1, ${windowEndsAt})
      ON CONFLICT (login) DO UPDATE SET
        failures = CASE WHEN f.window_ends_at <= ${now} THEN 1 ELSE f.failures + 1 END,
        window_ends_at = CASE WHEN f.window_ends_at <= ${now} THEN excluded.window_ends_at ELSE f.window_ends_at END
      RETURNING failures, window_ends_at`.execute(this.db);
    const row = rows[0];
    if (!row) throw new Error(`sign-in failures of ${login} answered no row`);
    return { failures: Number(row.failures), window_ends_at: row.window_ends_at };
  }

  async clearFailures(login: string): Promise<void> {
    await this.db.deleteFrom('web_sign_in_failures').where('login', '=', login).execute();
  }

  async passwordDigestOf(userId: number): Promise<string | null> {
    const row = await this.db.selectFrom('users').select('password_digest').where('id', '=', userId).executeTakeFirst();
    return row?.password_digest ?? null;
  }
}
