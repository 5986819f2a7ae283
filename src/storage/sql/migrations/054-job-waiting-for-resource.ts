import { partial, type DialectMigration } from './helpers.ts';

/**
 * The jobs waiting for their resource group's resource, by project and key: the sweep that
 * re-checks groups whose assignment task was lost, and the metrics' count of waiting builds,
 * read what waits, not every job that ever had a group.
 */
export const jobWaitingForResource: DialectMigration = {
  async up(db) {
    await db.schema
      .createIndex('ci_jobs_waiting_for_resource')
      .on('ci_jobs')
      .columns(['project_id', 'resource_group'])
      .where(partial("status = 'waiting_for_resource'"))
      .execute();
  },
};
