import type { DialectMigration } from './helpers.ts';

const BATCH = 500;

/**
 * Environments get GitLab's `tier` (declared by `environment:deployment_tier`, else guessed from
 * the name when the environment is created) and `auto_stop_at` (set from `auto_stop_in` when a
 * deployment succeeds; a sweep stops the environment once it has passed, the index finds them).
 * Jobs keep their `environment:url` and `auto_stop_in` expanded when they are created, as they
 * keep the environment's name, so that a deployment's success (and a retry) uses them.
 * Existing environments get the guessed tier, the rule written here as it stands today: a
 * migration never changes with the code.
 */
export const environmentTierAutoStop: DialectMigration = {
  async up(db) {
    await db.schema.alterTable('environments').addColumn('tier', 'text', (c) => c.notNull().defaultTo('other')).execute();
    await db.schema.alterTable('environments').addColumn('auto_stop_at', 'text').execute();
    await db.schema.createIndex('environments_auto_stop').on('environments').columns(['state', 'auto_stop_at']).execute();
    await db.schema.alterTable('ci_jobs').addColumn('environment_url', 'text').execute();
    await db.schema.alterTable('ci_jobs').addColumn('environment_auto_stop_in', 'text').execute();
    for (let after = 0; ; ) {
      const rows = (await db.selectFrom('environments').select(['id', 'name']).where('id', '>', after).orderBy('id').limit(BATCH).execute()) as Array<{ id: number; name: string }>;
      for (const row of rows) {
        const tier = guessedTier(row.name);
        if (tier !== 'other') await db.updateTable('environments').set({ tier }).where('id', '=', row.id).execute();
      }
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1]!.id;
    }
  },
};

/** GitLab's `Environment#guess_tier`: the first pattern the name matches. */
function guessedTier(name: string): string {
  if (/(dev|review|trunk)/i.test(name)) return 'development';
  if (/(test|tst|int|ac(ce|)pt|qa|qc|control|quality)/i.test(name)) return 'testing';
  if (/(st(a|)g|mod(e|)l|pre|demo|non)/i.test(name)) return 'staging';
  if (/(pr(o|)d|live)/i.test(name)) return 'production';
  return 'other';
}
