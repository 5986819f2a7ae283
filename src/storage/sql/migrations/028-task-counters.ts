import { columnTypes, type DialectMigration } from './helpers.ts';

/**
 * What the durable task queue has done, per task kind, since the installation began: every
 * attempt that ended (processed) and those that ended in an error (failed), as Sidekiq's
 * statistics count them. A finished task's row is deleted, so its count lives here.
 */
export const taskCounters: DialectMigration = {
  async up(db, dialect) {
    const { bigint } = columnTypes(dialect);
    await db.schema
      .createTable('task_counters')
      .addColumn('kind', 'text', (c) => c.primaryKey())
      .addColumn('processed', bigint, (c) => c.notNull())
      .addColumn('failed', bigint, (c) => c.notNull())
      .execute();
  },
};
