import type { DialectMigration } from './helpers.ts';

/**
 * GitLab's pipeline metadata on the pipeline itself: its `workflow:name` (expanded, null when
 * none) and its auto-cancel strategies, `conservative` and `none` for the pipelines of before.
 */
export const pipelineMetadata: DialectMigration = {
  async up(db) {
    await db.schema.alterTable('ci_pipelines').addColumn('name', 'text').execute();
    await db.schema.alterTable('ci_pipelines').addColumn('auto_cancel_on_new_commit', 'text', (c) => c.notNull().defaultTo('conservative')).execute();
    await db.schema.alterTable('ci_pipelines').addColumn('auto_cancel_on_job_failure', 'text', (c) => c.notNull().defaultTo('none')).execute();
  },
};
