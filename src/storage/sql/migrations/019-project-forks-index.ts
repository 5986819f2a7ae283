import type { DialectMigration } from './helpers.ts';

/**
 * A project's forks by their parent: every project view counts them, and without the index
 * that count reads the whole projects table.
 */
export const projectForksIndex: DialectMigration = {
  async up(db) {
    await db.schema.createIndex('projects_forked_from').on('projects').column('forked_from_id').execute();
  },
};
