import type { DialectMigration } from './helpers.ts';

/**
 * An environment created by a merge request pipeline's job records that merge request (GitLab's
 * `environments.merge_request_id`): merging or closing the request stops the environments it
 * created, whichever of its pipelines created them. Environments created before have none.
 */
export const environmentMergeRequest: DialectMigration = {
  async up(db) {
    await db.schema.alterTable('environments').addColumn('merge_request_id', 'integer').execute();
    await db.schema.createIndex('environments_merge_request').on('environments').column('merge_request_id').execute();
  },
};
