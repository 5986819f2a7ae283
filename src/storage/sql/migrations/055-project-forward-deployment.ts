import type { DialectMigration } from './helpers.ts';

/**
 * GitLab's "Prevent outdated deployment jobs" project settings: forward deployment
 * (`ci_forward_deployment_enabled`) and the retry of an older deployment job as a rollback
 * (`ci_forward_deployment_rollback_allowed`), both on by default as in GitLab.
 */
export const projectForwardDeployment: DialectMigration = {
  async up(db) {
    await db.schema.alterTable('projects').addColumn('ci_forward_deployment_enabled', 'integer', (c) => c.notNull().defaultTo(1)).execute();
    await db.schema.alterTable('projects').addColumn('ci_forward_deployment_rollback_allowed', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  },
};
