import type { DialectMigration } from './helpers.ts';

/**
 * Issue lists filter a project's issues by state (`state=opened` is the default of most
 * clients) and page them by creation: this index serves the count and the page without reading
 * every issue row of the project.
 */
export const issuesStateIndex: DialectMigration = {
  async up(db) {
    await db.schema.createIndex('issues_project_state_created').on('issues').columns(['project_id', 'state', 'created_at', 'id']).execute();
  },
};
