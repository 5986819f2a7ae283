import type { DialectMigration } from './helpers.ts';

/** Group hooks' `subgroup_events` and `member_events` flags (off by default, as GitLab's columns). */
export const groupHookEvents: DialectMigration = {
  async up(db) {
    await db.schema.alterTable('web_hooks').addColumn('subgroup_events', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('web_hooks').addColumn('member_events', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  },
};
