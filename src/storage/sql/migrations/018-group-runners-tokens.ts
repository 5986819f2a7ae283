import type { DialectMigration } from './helpers.ts';

/**
 * Groups' runner registration tokens (GitLab's `namespaces.runners_token`). A table of its
 * own rather than a namespaces column: namespace rows are read whole all over the
 * coordinator, and a secret has no business riding along in them. A group gets its token the
 * first time one is asked for.
 */
export const groupRunnersTokens: DialectMigration = {
  async up(db) {
    await db.schema
      .createTable('namespace_runners_tokens')
      .addColumn('namespace_id', 'integer', (c) => c.primaryKey().references('namespaces.id').onDelete('cascade'))
      .addColumn('runners_token', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
  },
};
