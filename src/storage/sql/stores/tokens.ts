import { createHash } from 'node:crypto';
import type { Db } from '../database.ts';
import type { TokensStore } from '../../types.ts';

export function digestToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export class SqlTokensStore implements TokensStore {
  constructor(private readonly db: Db) {}

  async create(userId: number, name: string, token: string): Promise<void> {
    await this.db
      .insertInto('personal_tokens')
      .values({ user_id: userId, name, token_digest: digestToken(token), created_at: new Date().toISOString() })
      .execute();
  }

  async findUserIdByToken(token: string): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('personal_tokens')
      .select('user_id')
      .where('token_digest', '=', digestToken(token))
      .executeTakeFirst();
    return row?.user_id;
  }

  async deleteForUser(userId: number): Promise<void> {
    await this.db.deleteFrom('personal_tokens').where('user_id', '=', userId).execute();
  }
}
