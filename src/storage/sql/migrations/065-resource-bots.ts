import type { DialectMigration } from './helpers.ts';

/**
 * The bot users of project and group access tokens (GitLab's project_bot users): which
 * project or group each bot belongs to. The bot's rights are its membership there; its
 * tokens are ordinary rows of personal_tokens. Deleting the user drops the row.
 */
export const resourceBots: DialectMigration = {
  async up(db) {
    await db.schema
      .createTable('resource_bots')
      .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
      .addColumn('source_type', 'text', (c) => c.notNull())
      .addColumn('source_id', 'integer', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('resource_bots_source').on('resource_bots').columns(['source_type', 'source_id']).execute();
  },
};
