import type { DialectMigration } from './helpers.ts';

/**
 * The merge requests each successful deployment shipped (GitLab's `deployment_merge_requests`):
 * one row per deployment and request, with the deployment's environment so the lists'
 * `environment` filter reads one index.
 */
export const deploymentMergeRequests: DialectMigration = {
  async up(db) {
    await db.schema
      .createTable('deployment_merge_requests')
      .addColumn('deployment_id', 'integer', (c) => c.notNull().references('deployments.id').onDelete('cascade'))
      .addColumn('merge_request_id', 'integer', (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
      .addColumn('environment_id', 'integer', (c) => c.notNull().references('environments.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('deployment_merge_requests_pkey', ['deployment_id', 'merge_request_id'])
      .execute();
    await db.schema.createIndex('deployment_merge_requests_merge_request').on('deployment_merge_requests').column('merge_request_id').execute();
    await db.schema.createIndex('deployment_merge_requests_environment').on('deployment_merge_requests').columns(['environment_id', 'merge_request_id']).execute();
  },
};
