import type { DialectMigration } from './helpers.ts';

/**
 * `ci_jobs.downstream_errors`: why a bridge's downstream pipeline was not created (a JSON array
 * of GitLab's messages, e.g. the rules left no job), kept on the bridge as GitLab keeps its
 * `downstream_errors`; null for every other job.
 */
export const jobDownstreamErrors: DialectMigration = {
  async up(db) {
    await db.schema.alterTable('ci_jobs').addColumn('downstream_errors', 'text').execute();
  },
};
