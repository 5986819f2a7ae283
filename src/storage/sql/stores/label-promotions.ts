import { isUniqueViolation } from '../../errors.ts';
import type { LabelPromotionsStore } from '../../types-label-promotions.ts';
import type { LabelRecord } from '../../types-planning.ts';
import type { Db } from '../database.ts';
import { sql } from '#deps/kysely';

export class SqlLabelPromotionsStore implements LabelPromotionsStore {
  constructor(private readonly db: Db) {}

  async promote(labelId: number, groupId: number, at: string): Promise<LabelRecord | undefined> {
    try {
      return await this.promoteOnce(labelId, groupId, at);
    } catch (error) {
      // Another promotion of the same title made the group label first: merge into it.
      if (!isUniqueViolation(error)) throw error;
      return this.promoteOnce(labelId, groupId, at);
    }
  }

  private promoteOnce(labelId: number, groupId: number, at: string): Promise<LabelRecord | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const label = await trx.selectFrom('labels').selectAll().where('id', '=', labelId).where('project_id', 'is not', null).executeTakeFirst();
      if (!label) return undefined;
      const existing = await trx.selectFrom('labels').selectAll().where('group_id', '=', groupId).where('title', '=', label.title).executeTakeFirst();
      const promoted =
        existing ??
        (await trx.updateTable('labels').set({ project_id: null, group_id: groupId, priority: null, updated_at: at }).where('id', '=', labelId).returningAll().executeTakeFirstOrThrow());
      const merged = trx
        .selectFrom('labels')
        .select('id')
        .where('title', '=', label.title)
        .where('id', '!=', promoted.id)
        .where('project_id', 'in', trx.selectFrom('projects').select('id').where('namespace_id', '=', groupId));
      await trx
        .insertInto('issue_labels')
        .columns(['issue_id', 'label_id'])
        .expression((eb) =>
          eb
            .selectFrom('issue_labels')
            .select(['issue_id', sql<number>`cast(${promoted.id} as integer)`.as('label_id')])
            .distinct()
            .where('label_id', 'in', merged)
            .where('issue_id', 'not in', eb.selectFrom('issue_labels').select('issue_id').where('label_id', '=', promoted.id)),
        )
        .execute();
      await trx
        .insertInto('subscriptions')
        .columns(['user_id', 'subscribable_type', 'subscribable_id', 'project_id', 'subscribed', 'created_at', 'updated_at'])
        .expression((eb) =>
          eb
            .selectFrom('subscriptions')
            .select(['user_id', 'subscribable_type', sql<number>`cast(${promoted.id} as integer)`.as('subscribable_id'), sql<number | null>`cast(null as integer)`.as('project_id'), sql<number>`max(subscribed)`.as('subscribed'), sql<string>`min(created_at)`.as('created_at'), sql<string>`${at}`.as('updated_at')])
            .where('subscribable_type', '=', 'Label')
            .where('subscribable_id', 'in', merged)
            .where('user_id', 'not in', eb.selectFrom('subscriptions').select('user_id').where('subscribable_type', '=', 'Label').where('subscribable_id', '=', promoted.id))
            .groupBy(['user_id', 'subscribable_type']),
        )
        .execute();
      const mergedIds = (await merged.execute()).map((row) => row.id);
      if (mergedIds.length > 0) {
        await trx.deleteFrom('subscriptions').where('subscribable_type', '=', 'Label').where('subscribable_id', 'in', mergedIds).execute();
        await trx.deleteFrom('labels').where('id', 'in', mergedIds).execute();
      }
      return promoted;
    });
  }
}
