import { partial, type DialectMigration } from './helpers.ts';

/**
 * Jobs of a `resource_group` wait in `waiting_for_resource` until their group assigns them its
 * resource (the oldest first, while no job of the group is pending, running or canceling): the
 * index finds both the holder and the oldest waiting job of a project's group, on jobs with a
 * group only. It replaces 051's index of the running ones, which the job queue no longer asks.
 */
export const jobResourceGroupAssignment: DialectMigration = {
  async up(db) {
    await db.schema.dropIndex('ci_jobs_resource_group_running').execute();
    await db.schema
      .createIndex('ci_jobs_resource_group_status')
      .on('ci_jobs')
      .columns(['project_id', 'resource_group', 'status', 'id'])
      .where(partial('resource_group is not null'))
      .execute();
  },
};
