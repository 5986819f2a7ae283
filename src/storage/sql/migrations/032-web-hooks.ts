import type { CreateTableBuilder } from '#deps/kysely';
import type { DialectName } from '../database.ts';
import { columnTypes, withId, type DialectMigration, type MigrationDb } from './helpers.ts';

/**
 * Webhooks: project hooks with their event flags and failure state, the deliveries queued for
 * each (sent in id order), and the log of the last deliveries of each hook.
 */
export const webHooks: DialectMigration = {
  async up(db, dialect) {
    await createWebHookTables(db, dialect, { hooks: 'web_hooks', deliveries: 'web_hook_deliveries', logs: 'web_hook_logs' }, 'v1');
    await createWebHookIndexes(db);
  },
};

/** The three tables' names (migration 037 rebuilds them on SQLite under other names first). */
export interface WebHookTableNames {
  hooks: string;
  deliveries: string;
  logs: string;
}

/** `v1`: project hooks only (032); `v2`: project, group and system hooks (037). */
export async function createWebHookTables(db: MigrationDb, dialect: DialectName, names: WebHookTableNames, version: 'v1' | 'v2'): Promise<void> {
  let hooks = withId(db.schema.createTable(names.hooks), dialect);
  hooks = version === 'v1'
    ? hooks.addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    : hooks.addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'));
  hooks = hooks
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('token', 'text')
    .addColumn('enable_ssl_verification', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('push_events_branch_filter', 'text')
    .addColumn('branch_filter_strategy', 'text', (c) => c.notNull().defaultTo('wildcard'));
  for (const flag of V1_EVENT_FLAGS) hooks = hooks.addColumn(flag, 'integer', (c) => c.notNull().defaultTo(0));
  hooks = hooks
    .addColumn('recent_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('backoff_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('disabled_until', 'text')
    .addColumn('permanently_disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('delivery_owner', 'text')
    .addColumn('delivery_lease_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull());
  if (version === 'v2') hooks = withV2Columns(hooks);
  await hooks.execute();

  await withId(db.schema.createTable(names.deliveries), dialect)
    .addColumn('hook_id', 'integer', (c) => c.notNull().references(`${names.hooks}.id`).onDelete('cascade'))
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('uuid', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable(names.logs), dialect)
    .addColumn('hook_id', 'integer', (c) => c.notNull().references(`${names.hooks}.id`).onDelete('cascade'))
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('request_headers', 'text', (c) => c.notNull())
    .addColumn('request_data', 'text', (c) => c.notNull())
    .addColumn('response_status', 'text', (c) => c.notNull())
    .addColumn('response_headers', 'text', (c) => c.notNull())
    .addColumn('response_body', 'text', (c) => c.notNull())
    .addColumn('execution_duration', columnTypes(dialect).double, (c) => c.notNull())
    .addColumn('internal_error_message', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

/** The columns 037 adds: the hook's kind, its group (group hooks), the system hooks' repository update flag. */
export function withV2Columns<T extends string>(table: CreateTableBuilder<T, never> | CreateTableBuilder<T, 'id'>): CreateTableBuilder<T, 'id'> {
  return (table as CreateTableBuilder<T, 'id'>)
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('project'))
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('repository_update_events', 'integer', (c) => c.notNull().defaultTo(0));
}

export async function createWebHookIndexes(db: MigrationDb): Promise<void> {
  await db.schema.createIndex('web_hooks_project').on('web_hooks').column('project_id').execute();
  await db.schema.createIndex('web_hook_deliveries_hook').on('web_hook_deliveries').columns(['hook_id', 'id']).execute();
  await db.schema.createIndex('web_hook_logs_hook').on('web_hook_logs').columns(['hook_id', 'id']).execute();
}

/** The event flag columns 032 created (later migrations add theirs). */
const V1_EVENT_FLAGS = [
  'push_events', 'tag_push_events', 'issues_events', 'confidential_issues_events', 'merge_requests_events', 'note_events',
  'confidential_note_events', 'job_events', 'pipeline_events', 'wiki_page_events', 'deployment_events', 'releases_events',
] as const;
