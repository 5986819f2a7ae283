import type { Db } from '../database.ts';
import type { RegistrationTokensStore } from '../../types-runners.ts';

/** Projects' `runners_token` column and groups' tokens (table namespace_runners_tokens). */
export class SqlRegistrationTokensStore implements RegistrationTokensStore {
  constructor(private readonly db: Db) {}

  async projectIdByRunnersToken(token: string): Promise<number | undefined> {
    const row = await this.db.selectFrom('projects').select('id').where('runners_token', '=', token).where('pending_delete', '=', 0).executeTakeFirst();
    return row?.id;
  }

  async groupIdByRunnersToken(token: string): Promise<number | undefined> {
    const row = await this.db.selectFrom('namespace_runners_tokens').select('namespace_id').where('runners_token', '=', token).executeTakeFirst();
    return row?.namespace_id;
  }

  async groupRunnersToken(namespaceId: number, fresh: string, now: string): Promise<string> {
    await this.db
      .insertInto('namespace_runners_tokens')
      .values({ namespace_id: namespaceId, runners_token: fresh, created_at: now })
      .onConflict((conflict) => conflict.column('namespace_id').doNothing())
      .execute();
    const row = await this.db.selectFrom('namespace_runners_tokens').select('runners_token').where('namespace_id', '=', namespaceId).executeTakeFirstOrThrow();
    return row.runners_token;
  }

  async setGroupRunnersToken(namespaceId: number, token: string, now: string): Promise<void> {
    await this.db
      .insertInto('namespace_runners_tokens')
      .values({ namespace_id: namespaceId, runners_token: token, created_at: now })
      .onConflict((conflict) => conflict.column('namespace_id').doUpdateSet({ runners_token: token, created_at: now }))
      .execute();
  }
}
