import { INTEGRATION_EVENT_FLAGS } from '../../types-integrations.ts';
import { withId, type DialectMigration } from './helpers.ts';

/** Project integrations: one row per project and neutral slug, event flags as 0/1 columns, settings as JSON text. */
export const integrations: DialectMigration = {
  async up(db, dialect) {
    let table = withId(db.schema.createTable('integrations'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('active', 'integer', (c) => c.notNull().defaultTo(0));
    for (const flag of INTEGRATION_EVENT_FLAGS) table = table.addColumn(flag, 'integer', (c) => c.notNull().defaultTo(0));
    await table
      .addColumn('properties', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('integrations_project_slug', ['project_id', 'slug'])
      .execute();
  },
};
