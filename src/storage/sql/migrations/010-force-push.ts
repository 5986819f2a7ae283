import type { DialectMigration } from './helpers.ts';

/** Protected branches may allow force pushes (`allow_force_push`). */
export const protectedBranchForcePush: DialectMigration = {
  async up(db) {
    await db.schema.alterTable('protected_branches').addColumn('allow_force_push', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  },
};
