import { withId, type DialectMigration } from './helpers.ts';

/** Runners (instance, group, project), the projects and groups they serve. */
export const ciRunners: DialectMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('ci_runners'), dialect)
      .addColumn('runner_type', 'text', (c) => c.notNull())
      .addColumn('token_digest', 'text', (c) => c.notNull().unique())
      .addColumn('token_prefix', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('locked', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('run_untagged', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('tag_list', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('access_level', 'text', (c) => c.notNull().defaultTo('not_protected'))
      .addColumn('maximum_timeout', 'integer')
      .addColumn('name', 'text')
      .addColumn('version', 'text')
      .addColumn('revision', 'text')
      .addColumn('platform', 'text')
      .addColumn('architecture', 'text')
      .addColumn('executor', 'text')
      .addColumn('ip_address', 'text')
      .addColumn('contacted_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('ci_runners_type').on('ci_runners').columns(['runner_type', 'id']).execute();

    await withId(db.schema.createTable('ci_runner_projects'), dialect)
      .addColumn('runner_id', 'integer', (c) => c.notNull().references('ci_runners.id').onDelete('cascade'))
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('ci_runner_projects_pair', ['runner_id', 'project_id'])
      .execute();
    await db.schema.createIndex('ci_runner_projects_project').on('ci_runner_projects').column('project_id').execute();

    await withId(db.schema.createTable('ci_runner_namespaces'), dialect)
      .addColumn('runner_id', 'integer', (c) => c.notNull().references('ci_runners.id').onDelete('cascade'))
      .addColumn('namespace_id', 'integer', (c) => c.notNull().references('namespaces.id').onDelete('cascade'))
      .addUniqueConstraint('ci_runner_namespaces_pair', ['runner_id', 'namespace_id'])
      .execute();
    await db.schema.createIndex('ci_runner_namespaces_namespace').on('ci_runner_namespaces').column('namespace_id').execute();
  },
};
