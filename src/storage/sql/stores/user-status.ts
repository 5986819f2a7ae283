import type { Db } from '../database.ts';
import type { UserAvailability, UserStatusRecord, UserStatusStore } from '../../types-user-status.ts';

export class SqlUserStatusStore implements UserStatusStore {
  /** No read cache depends on statuses: their writes are not reported. */
  constructor(private readonly db: Db) {}

  async find(userId: number): Promise<UserStatusRecord | undefined> {
    const row = await this.db.selectFrom('user_statuses').selectAll().where('user_id', '=', userId).executeTakeFirst();
    return row ? { ...row, availability: row.availability as UserAvailability } : undefined;
  }

  async set(status: UserStatusRecord): Promise<UserStatusRecord> {
    const { user_id: _userId, ...changes } = status;
    await this.db
      .insertInto('user_statuses')
      .values(status)
      .onConflict((oc) => oc.column('user_id').doUpdateSet(changes))
      .execute();
    return status;
  }

  async clear(userId: number): Promise<void> {
    await this.db.deleteFrom('user_statuses').where('user_id', '=', userId).execute();
  }
}
