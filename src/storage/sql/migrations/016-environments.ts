import { withId, type DialectMigration } from './helpers.ts';

/** Environments of projects and deployments to them (iid per project). */
export const environments: DialectMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('environments'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('external_url', 'text')
      .addColumn('state', 'text', (c) => c.notNull().defaultTo('available'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('environments_project_name', ['project_id', 'name'])
      .addUniqueConstraint('environments_project_slug', ['project_id', 'slug'])
      .execute();

    await withId(db.schema.createTable('deployments'), dialect)
      .addColumn('iid', 'integer', (c) => c.notNull())
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('environment_id', 'integer', (c) => c.notNull().references('environments.id').onDelete('cascade'))
      .addColumn('job_id', 'integer', (c) => c.references('ci_jobs.id').onDelete('set null'))
      .addColumn('ref', 'text', (c) => c.notNull())
      .addColumn('tag', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('sha', 'text', (c) => c.notNull())
      .addColumn('user_id', 'integer')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('on_stop', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('finished_at', 'text')
      .addUniqueConstraint('deployments_project_iid', ['project_id', 'iid'])
      .execute();
    await db.schema.createIndex('deployments_environment').on('deployments').columns(['environment_id', 'status', 'id']).execute();
    await db.schema.createIndex('deployments_job').on('deployments').column('job_id').execute();
  },
};
