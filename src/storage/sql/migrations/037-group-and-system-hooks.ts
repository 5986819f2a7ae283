import { sql } from '#deps/kysely';
import { createWebHookIndexes, createWebHookTables, type WebHookTableNames } from './032-web-hooks.ts';
import type { DialectMigration, MigrationDb } from './helpers.ts';

const CURRENT: WebHookTableNames = { hooks: 'web_hooks', deliveries: 'web_hook_deliveries', logs: 'web_hook_logs' };
const REBUILT: WebHookTableNames = { hooks: 'web_hooks_v2', deliveries: 'web_hook_deliveries_v2', logs: 'web_hook_logs_v2' };

/**
 * Group and system hooks in `web_hooks`: a `kind` (`project`, `group`, `system`), a nullable
 * `project_id`, a `group_id`, and the system hooks' `repository_update_events` flag.
 * PostgreSQL drops the NOT NULL in place; SQLite cannot, so the three tables are rebuilt (the
 * new ones under other names, the rows copied with their ids, the old ones dropped children
 * first so no cascade fires, then renamed: SQLite rewrites the children's references).
 */
export const groupAndSystemHooks: DialectMigration = {
  async up(db, dialect) {
    if (dialect === 'postgres') {
      await db.schema.alterTable('web_hooks').alterColumn('project_id', (c) => c.dropNotNull()).execute();
      await db.schema.alterTable('web_hooks').addColumn('kind', 'text', (c) => c.notNull().defaultTo('project')).execute();
      await db.schema.alterTable('web_hooks').addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade')).execute();
      await db.schema.alterTable('web_hooks').addColumn('repository_update_events', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    } else {
      await createWebHookTables(db, dialect, REBUILT, 'v2');
      await copyRows(db, CURRENT.hooks, REBUILT.hooks);
      await copyRows(db, CURRENT.deliveries, REBUILT.deliveries);
      await copyRows(db, CURRENT.logs, REBUILT.logs);
      for (const table of [CURRENT.logs, CURRENT.deliveries, CURRENT.hooks]) await db.schema.dropTable(table).execute();
      for (const key of ['hooks', 'deliveries', 'logs'] as const) await db.schema.alterTable(REBUILT[key]).renameTo(CURRENT[key]).execute();
      await createWebHookIndexes(db);
    }
    await db.schema.createIndex('web_hooks_group').on('web_hooks').column('group_id').execute();
    await db.schema.createIndex('web_hooks_kind').on('web_hooks').column('kind').execute();
  },
};

/** Copies every row with the columns both tables have (the new ones take their defaults). */
async function copyRows(db: MigrationDb, from: string, to: string): Promise<void> {
  const columns = (await sql<{ name: string }>`select name from pragma_table_info(${from})`.execute(db)).rows.map((row) => row.name);
  const list = sql.join(columns.map((name) => sql.ref(name)));
  await sql`insert into ${sql.table(to)} (${list}) select ${list} from ${sql.table(from)}`.execute(db);
}
