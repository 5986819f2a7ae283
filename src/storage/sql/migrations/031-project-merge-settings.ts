import type { DialectMigration } from './helpers.ts';

/**
 * How a project merges its merge requests, as GitLab's project settings say: the merge method
 * (`merge`, `rebase_merge`, `ff`), the squash option (`never`, `always`, `default_on`,
 * `default_off`) and whether a merge deletes the source branch by default.
 */
export const projectMergeSettings: DialectMigration = {
  async up(db) {
    await db.schema.alterTable('projects').addColumn('merge_method', 'text', (c) => c.notNull().defaultTo('merge')).execute();
    await db.schema.alterTable('projects').addColumn('squash_option', 'text', (c) => c.notNull().defaultTo('default_off')).execute();
    await db.schema.alterTable('projects').addColumn('remove_source_branch_after_merge', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  },
};
