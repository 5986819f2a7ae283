/** Migration 053: environments get GitLab's guessed tier and no auto-stop time; jobs their expanded URL and auto_stop_in. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from '#deps/kysely';
import { environmentTier } from '../../../src/ci/environment-tier.ts';
import { migrateToLatest } from '../../../src/storage/sql/migrate.ts';
import { databaseMigratedUpTo, insertOwnedProject } from '../../helpers/migration-database.ts';

describe('migration 053 (environment tier and auto-stop)', () => {
  const database = databaseMigratedUpTo('052-job-resource-group-assignment');

  it('gives existing environments the tier GitLab guesses from their names', async () => {
    const { db, dialect } = database();
    const now = new Date().toISOString();
    const { projectId } = await insertOwnedProject(db, now);
    const names = ['production', 'live', 'staging', 'pre-prod', 'review/fix-1', 'qa', 'sandbox'];
    for (const [index, name] of names.entries()) {
      await sql`insert into environments (project_id, name, slug, created_at, updated_at) values (${projectId}, ${name}, ${`slug-${index}`}, ${now}, ${now})`.execute(db);
    }

    await migrateToLatest(db, dialect);

    const stored = await db.selectFrom('environments').select(['name', 'tier', 'auto_stop_at']).orderBy('id').execute();
    assert.deepEqual(stored, names.map((name) => ({ name, tier: environmentTier(name, null), auto_stop_at: null })));
    assert.deepEqual(stored.map((row) => row.tier), ['production', 'production', 'staging', 'staging', 'development', 'testing', 'other']);
  });
});
