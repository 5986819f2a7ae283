import { withId, type DialectMigration } from './helpers.ts';

/** Protected tags: who may create tags matching a name or wildcard. */
export const protectedTags: DialectMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('protected_tags'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('create_access_level', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('protected_tags_project_name', ['project_id', 'name'])
      .execute();
  },
};
