import { partial, withId, type DialectMigration } from './helpers.ts';

/**
 * Today's gitlab-runner (issue 25): runner managers, one row per (runner, system_id), as
 * GitLab's `ci_runner_machines`, with what each host reports and the features it announced;
 * a runner's maintenance note, token expiry and registration type (`glrt-` tokens of runners
 * a user created keep their prefix when reset); and, on each job, whether the runner manager
 * that took it cancels gracefully (GitLab keeps it in the build's `runtime_runner_features`).
 */
export const runnerManagers: DialectMigration = {
  async up(db, dialect) {
    await db.schema.alterTable('ci_runners').addColumn('maintenance_note', 'text', (c) => c.notNull().defaultTo('')).execute();
    await db.schema.alterTable('ci_runners').addColumn('token_expires_at', 'text').execute();
    await db.schema.alterTable('ci_runners').addColumn('registration_type', 'text', (c) => c.notNull().defaultTo('registration_token')).execute();
    await db.schema.alterTable('ci_jobs').addColumn('cancel_gracefully', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    // The stale-job sweep's look for canceling jobs whose runner went silent.
    await db.schema.createIndex('ci_jobs_canceling_updated').on('ci_jobs').column('updated_at').where(partial("status = 'canceling'")).execute();

    await withId(db.schema.createTable('ci_runner_managers'), dialect)
      .addColumn('runner_id', 'integer', (c) => c.notNull().references('ci_runners.id').onDelete('cascade'))
      .addColumn('system_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text')
      .addColumn('version', 'text')
      .addColumn('revision', 'text')
      .addColumn('platform', 'text')
      .addColumn('architecture', 'text')
      .addColumn('executor', 'text')
      .addColumn('ip_address', 'text')
      .addColumn('features', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('contacted_at', 'text')
      .addUniqueConstraint('ci_runner_managers_system', ['runner_id', 'system_id'])
      .execute();
  },
};
