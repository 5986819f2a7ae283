import type { Db } from '../database.ts';
import type { NoteableType } from '../../types-notes.ts';
import type { SubscribableType, SubscriptionsStore } from '../../types-todos.ts';

export class SqlSubscriptionsStore implements SubscriptionsStore {
  constructor(private readonly db: Db) {}

  async choices(userId: number, type: SubscribableType, ids: readonly number[]): Promise<Map<number, boolean>> {
    const choices = new Map<number, boolean>();
    if (ids.length === 0) return choices;
    const rows = await this.db
      .selectFrom('subscriptions')
      .select(['subscribable_id', 'subscribed'])
      .where('user_id', '=', userId)
      .where('subscribable_type', '=', type)
      .where('subscribable_id', 'in', [...new Set(ids)])
      .execute();
    for (const row of rows) choices.set(row.subscribable_id, row.subscribed === 1);
    return choices;
  }

  async set(userId: number, type: SubscribableType, id: number, projectId: number | null, subscribed: boolean, at: string): Promise<void> {
    await this.db
      .insertInto('subscriptions')
      .values({ user_id: userId, subscribable_type: type, subscribable_id: id, project_id: projectId, subscribed: subscribed ? 1 : 0, created_at: at, updated_at: at })
      .onConflict((conflict) => conflict.columns(['subscribable_type', 'subscribable_id', 'user_id']).doUpdateSet({ subscribed: subscribed ? 1 : 0, updated_at: at }))
      .execute();
  }

  async hasNoted(userId: number, noteableId: number, noteableType: NoteableType = 'Issue'): Promise<boolean> {
    const row = await this.db
      .selectFrom('notes')
      .select('id')
      .where('noteable_type', '=', noteableType)
      .where('noteable_id', '=', noteableId)
      .where('author_id', '=', userId)
      .where('system', '=', 0)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }
}
