import { partial, type DialectMigration } from './helpers.ts';

/**
 * `ci_jobs.resource_group`: the job's `resource_group` key, expanded when the job is created
 * (null without one). The job queue hands out no job of a group while another of its project's
 * jobs in that group runs; the index finds the running one.
 */
export const jobResourceGroup: DialectMigration = {
  async up(db) {
    await db.schema.alterTable('ci_jobs').addColumn('resource_group', 'text').execute();
    await db.schema
      .createIndex('ci_jobs_resource_group_running')
      .on('ci_jobs')
      .columns(['project_id', 'resource_group'])
      .where(partial("resource_group is not null and status in ('running', 'canceling')"))
      .execute();
  },
};
