import { HOOK_EVENT_FLAGS } from '../../types-hooks.ts';
import { columnTypes, withId, type DialectMigration } from './helpers.ts';

/**
 * Webhooks: project hooks with their event flags and failure state, the deliveries queued for
 * each (sent in id order), and the log of the last deliveries of each hook.
 */
export const webHooks: DialectMigration = {
  async up(db, dialect) {
    let hooks = withId(db.schema.createTable('web_hooks'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('token', 'text')
      .addColumn('enable_ssl_verification', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('push_events_branch_filter', 'text')
      .addColumn('branch_filter_strategy', 'text', (c) => c.notNull().defaultTo('wildcard'));
    for (const flag of HOOK_EVENT_FLAGS) hooks = hooks.addColumn(flag, 'integer', (c) => c.notNull().defaultTo(0));
    await hooks
      .addColumn('recent_failures', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('backoff_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('disabled_until', 'text')
      .addColumn('permanently_disabled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('delivery_owner', 'text')
      .addColumn('delivery_lease_until', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('web_hooks_project').on('web_hooks').column('project_id').execute();

    await withId(db.schema.createTable('web_hook_deliveries'), dialect)
      .addColumn('hook_id', 'integer', (c) => c.notNull().references('web_hooks.id').onDelete('cascade'))
      .addColumn('trigger', 'text', (c) => c.notNull())
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('uuid', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('web_hook_deliveries_hook').on('web_hook_deliveries').columns(['hook_id', 'id']).execute();

    await withId(db.schema.createTable('web_hook_logs'), dialect)
      .addColumn('hook_id', 'integer', (c) => c.notNull().references('web_hooks.id').onDelete('cascade'))
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
    await db.schema.createIndex('web_hook_logs_hook').on('web_hook_logs').columns(['hook_id', 'id']).execute();
  },
};
