import type { DialectMigration } from './helpers.ts';

/** A user's status (GitLab's `/user/status`): one row per user who set one. */
export const userStatuses: DialectMigration = {
  async up(db) {
    await db.schema
      .createTable('user_statuses')
      .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
      .addColumn('emoji', 'text', (c) => c.notNull())
      .addColumn('message', 'text')
      .addColumn('availability', 'text', (c) => c.notNull().defaultTo('not_set'))
      .addColumn('clear_status_at', 'text')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  },
};
