import { withId, type DialectMigration } from './helpers.ts';

/** Project and group CI variables, pipeline triggers, pipeline schedules with their variables. */
export const ciSettings: DialectMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('ci_variables'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('variable_type', 'text', (c) => c.notNull().defaultTo('env_var'))
      .addColumn('protected', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('masked', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('environment_scope', 'text', (c) => c.notNull().defaultTo('*'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('ci_variables_key_scope', ['project_id', 'key', 'environment_scope'])
      .execute();

    await withId(db.schema.createTable('ci_group_variables'), dialect)
      .addColumn('group_id', 'integer', (c) => c.notNull().references('namespaces.id').onDelete('cascade'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('variable_type', 'text', (c) => c.notNull().defaultTo('env_var'))
      .addColumn('protected', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('masked', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('ci_group_variables_key', ['group_id', 'key'])
      .execute();

    await withId(db.schema.createTable('ci_triggers'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('token', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('owner_id', 'integer')
      .addColumn('last_used', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('ci_triggers_project').on('ci_triggers').columns(['project_id', 'id']).execute();

    await withId(db.schema.createTable('ci_pipeline_schedules'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('ref', 'text', (c) => c.notNull())
      .addColumn('cron', 'text', (c) => c.notNull())
      .addColumn('cron_timezone', 'text', (c) => c.notNull())
      .addColumn('next_run_at', 'text')
      .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('owner_id', 'integer')
      .addColumn('last_pipeline_id', 'integer', (c) => c.references('ci_pipelines.id').onDelete('set null'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('ci_pipeline_schedules_project').on('ci_pipeline_schedules').columns(['project_id', 'id']).execute();
    await db.schema.createIndex('ci_pipeline_schedules_due').on('ci_pipeline_schedules').columns(['active', 'next_run_at']).execute();

    await withId(db.schema.createTable('ci_pipeline_schedule_variables'), dialect)
      .addColumn('schedule_id', 'integer', (c) => c.notNull().references('ci_pipeline_schedules.id').onDelete('cascade'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('variable_type', 'text', (c) => c.notNull().defaultTo('env_var'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('ci_pipeline_schedule_variables_key', ['schedule_id', 'key'])
      .execute();
  },
};
