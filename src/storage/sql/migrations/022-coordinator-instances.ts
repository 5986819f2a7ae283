import { columnTypes, type DialectMigration } from './helpers.ts';

/**
 * Several coordinators on one database: the installation's identity (matched against the
 * data directory's marker), one row per running coordinator process with its heartbeat, the
 * owner of a project's pending_delete mark, and the rate-limit counters they share.
 */
export const coordinatorInstances: DialectMigration = {
  async up(db, dialect) {
    const { bigint } = columnTypes(dialect);
    await db.schema
      .createTable('gantry_installation')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('installation_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('coordinator_instances')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('hostname', 'text', (c) => c.notNull())
      .addColumn('pid', 'integer', (c) => c.notNull())
      .addColumn('version', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text', (c) => c.notNull())
      // Milliseconds since the epoch by the database's clock, so hosts' clocks never disagree.
      .addColumn('heartbeat_at_ms', bigint, (c) => c.notNull())
      .execute();
    await db.schema.alterTable('projects').addColumn('pending_instance_id', 'text').execute();
    await db.schema
      .createTable('throttle_counters')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('hits', bigint, (c) => c.notNull())
      .addColumn('window_ends_at_ms', bigint, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('throttle_counters_window').on('throttle_counters').column('window_ends_at_ms').execute();
  },
};
