/** Migration 048: environments keep GitLab's slug, the one their jobs' CI_ENVIRONMENT_SLUG names. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from '#deps/kysely';
import { environmentSlug } from '../../../src/ci/slug.ts';
import { openDatabase } from '../../../src/storage/sql/database.ts';
import { migrateToLatest } from '../../../src/storage/sql/migrate.ts';
import { environmentSlugs } from '../../../src/storage/sql/migrations/048-environment-slugs.ts';

describe('migration 048', () => {
  it('rewrites the slugs made with the old suffix and leaves names that are slugs already', async () => {
    const { db, dialect, close } = openDatabase(':memory:');
    try {
      await migrateToLatest(db, dialect);
      await sql.raw('PRAGMA foreign_keys = OFF').execute(db);
      const now = new Date().toISOString();
      const rows: Array<[string, string]> = [['Stage Domain', 'stage-domain-1a2b3c'], ['review/feature-x', 'review-feature-x-0f0f0f'], ['production', 'production']];
      for (const [name, slug] of rows) {
        await sql`INSERT INTO environments (project_id, name, slug, created_at, updated_at) VALUES (1, ${name}, ${slug}, ${now}, ${now})`.execute(db);
      }
      await environmentSlugs.up(db, dialect);
      const stored = await db.selectFrom('environments').select(['name', 'slug']).orderBy('id').execute();
      assert.deepEqual(stored, rows.map(([name]) => ({ name, slug: environmentSlug(name) })));
      assert.equal(stored[0]?.slug, 'stage-domain-ip33nk', "GitLab's own example");
      assert.equal(stored[2]?.slug, 'production');
    } finally {
      await close();
    }
  });
});
