import type { DialectMigration } from './helpers.ts';

/**
 * Milestones of releases (GitLab's milestone_releases): a release has any number of its
 * project's (or its group's) milestones, and a milestone any number of releases. Deleting
 * either side drops the pairing only.
 */
export const milestoneReleases: DialectMigration = {
  async up(db) {
    await db.schema
      .createTable('milestone_releases')
      .addColumn('release_id', 'integer', (c) => c.notNull().references('releases.id').onDelete('cascade'))
      .addColumn('milestone_id', 'integer', (c) => c.notNull().references('milestones.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('milestone_releases_pkey', ['release_id', 'milestone_id'])
      .execute();
    await db.schema.createIndex('milestone_releases_milestone').on('milestone_releases').column('milestone_id').execute();
  },
};
