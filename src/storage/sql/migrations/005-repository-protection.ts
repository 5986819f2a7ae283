import { withId, type DialectMigration } from './helpers.ts';

/** Protected branches, releases (tag notes), deploy keys and their project links. */
export const repositoryProtection: DialectMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('protected_branches'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('push_access_level', 'integer', (c) => c.notNull())
      .addColumn('merge_access_level', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('protected_branches_project_name', ['project_id', 'name'])
      .execute();
    await withId(db.schema.createTable('releases'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('tag_name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('releases_project_tag', ['project_id', 'tag_name'])
      .execute();
    await withId(db.schema.createTable('deploy_keys'), dialect)
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await withId(db.schema.createTable('deploy_keys_projects'), dialect)
      .addColumn('deploy_key_id', 'integer', (c) => c.notNull().references('deploy_keys.id').onDelete('cascade'))
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('can_push', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('deploy_keys_projects_key_project', ['deploy_key_id', 'project_id'])
      .execute();
    await db.schema.createIndex('deploy_keys_projects_project').on('deploy_keys_projects').column('project_id').execute();
  },
};
