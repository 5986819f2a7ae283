import type { DialectMigration } from './helpers.ts';

/**
 * The issue an issue was moved to (GitLab's `moved_to_id`): set once, when the move closes the
 * original; cleared should the new issue be deleted.
 */
export const issueMovedTo: DialectMigration = {
  async up(db) {
    await db.schema.alterTable('issues').addColumn('moved_to_id', 'integer', (c) => c.references('issues.id').onDelete('set null')).execute();
  },
};
