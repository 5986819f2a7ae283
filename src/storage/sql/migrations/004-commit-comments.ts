import { withId, type DialectMigration } from './helpers.ts';

/** Comments on commits (`/projects/:id/repository/commits/:sha/comments`). */
export const commitComments: DialectMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('commit_comments'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('commit_id', 'text', (c) => c.notNull())
      .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('note', 'text', (c) => c.notNull())
      .addColumn('path', 'text')
      .addColumn('line', 'integer')
      .addColumn('line_type', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('commit_comments_project_commit').on('commit_comments').columns(['project_id', 'commit_id']).execute();
  },
};
