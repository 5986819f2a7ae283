import { partial, withId, type DialectMigration } from './helpers.ts';

/** The durable task queue. */
export const tasks: DialectMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('tasks'), dialect)
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('run_at', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('max_attempts', 'integer', (c) => c.notNull())
      .addColumn('locked_by', 'text')
      .addColumn('locked_until', 'text')
      .addColumn('last_error', 'text')
      .addColumn('dedupe_key', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('tasks_ready').on('tasks').columns(['run_at', 'id']).where(partial("status = 'pending'")).execute();
    await db.schema.createIndex('tasks_leases').on('tasks').column('locked_until').where(partial("status = 'running'")).execute();
    await db.schema.createIndex('tasks_dedupe').unique().on('tasks').column('dedupe_key').where(partial("status = 'pending' and dedupe_key is not null")).execute();
  },
};
