import { withId, type DialectMigration } from './helpers.ts';

/**
 * The versions of each merge request's diff (GitLab's merge_request_diffs): one row each time a
 * refresh gives the request a new head, merge base or target tip. The requests refreshed
 * before this migration get one version from the diff refs they have now, dated by their
 * updated_at (the last time the row changed); `state` and `real_size` are left null there, to be
 * read from git the first time the version is served (a migration runs no git).
 */
export const mergeRequestDiffVersions: DialectMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('merge_request_diff_versions'), dialect)
      .addColumn('merge_request_id', 'integer', (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
      .addColumn('head_commit_sha', 'text', (c) => c.notNull())
      .addColumn('base_commit_sha', 'text')
      .addColumn('start_commit_sha', 'text', (c) => c.notNull())
      .addColumn('state', 'text')
      .addColumn('real_size', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('merge_request_diff_versions_request').on('merge_request_diff_versions').columns(['merge_request_id', 'id']).execute();
    const refreshed = db
      .selectFrom('merge_requests')
      .select(['id as merge_request_id', 'head_sha as head_commit_sha', 'base_sha as base_commit_sha', 'start_sha as start_commit_sha', 'updated_at as created_at'])
      .where('head_sha', 'is not', null)
      .where('start_sha', 'is not', null)
      .orderBy('id');
    await db
      .insertInto('merge_request_diff_versions')
      .columns(['merge_request_id', 'head_commit_sha', 'base_commit_sha', 'start_commit_sha', 'created_at'])
      .expression(refreshed)
      .execute();
  },
};
