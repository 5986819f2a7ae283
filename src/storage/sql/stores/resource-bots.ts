import type { Db } from '../database.ts';
import type { ResourceBotRecord, ResourceBotsStore } from '../../types-tokens.ts';

export class SqlResourceBotsStore implements ResourceBotsStore {
  constructor(private readonly db: Db) {}

  async add(bot: ResourceBotRecord): Promise<void> {
    await this.db.insertInto('resource_bots').values(bot).execute();
  }

  async find(userId: number): Promise<ResourceBotRecord | undefined> {
    const row = await this.db.selectFrom('resource_bots').select(['user_id', 'source_type', 'source_id']).where('user_id', '=', userId).executeTakeFirst();
    return row && { ...row, source_type: row.source_type === 'project' ? 'project' : 'namespace' };
  }

  async userIdsForSource(sourceType: ResourceBotRecord['source_type'], sourceId: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('resource_bots')
      .select('user_id')
      .where('source_type', '=', sourceType)
      .where('source_id', '=', sourceId)
      .orderBy('user_id')
      .execute();
    return rows.map((row) => row.user_id);
  }
}
