/** Migration 053: environments get GitLab's guessed tier and no auto-stop time; jobs their expanded URL and auto_stop_in. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from '#deps/kysely';
import { environmentTier } from '../../../src/ci/environment-tier.ts';
import { openDatabase, type OpenedDatabase } from '../../../src/storage/sql/database.ts';
import { migrateToLatest, migrateUpTo } from '../../../src/storage/sql/migrate.ts';
import { testDatabase } from '../../helpers/database.ts';

describe('migration 053 (environment tier and auto-stop)', () => {
  let opened: OpenedDatabase;
  let drop: () => Promise<void>;

  before(async () => {
    const database = await testDatabase({ fresh: true });
    drop = database.drop;
    opened = openDatabase(database.url);
    await migrateUpTo(opened.db, opened.dialect, '051-job-resource-group');
  });
  after(async () => {
    await opened.close();
    await drop();
  });

  it('gives existing environments the tier GitLab guesses from their names', async () => {
    const { db } = opened;
    const now = new Date().toISOString();
    const user = await sql<{ id: number }>`insert into users (username, name, email, projects_limit, created_at, updated_at) values ('owner', 'Owner', 'o@example.com', 10, ${now}, ${now}) returning id`.execute(db);
    const namespace = await sql<{ id: number }>`insert into namespaces (kind, name, path, full_path, full_name, visibility, created_at, updated_at) values ('group', 'G', 'g', 'g', 'G', 'private', ${now}, ${now}) returning id`.execute(db);
    const project = await sql<{ id: number }>`insert into projects (namespace_id, creator_id, name, path, visibility, runners_token, created_at, updated_at, last_activity_at) values (${namespace.rows[0]!.id}, ${user.rows[0]!.id}, 'P', 'p', 'private', 'rt-1', ${now}, ${now}, ${now}) returning id`.execute(db);
    const projectId = project.rows[0]!.id;
    const names = ['production', 'live', 'staging', 'pre-prod', 'review/fix-1', 'qa', 'sandbox'];
    for (const [index, name] of names.entries()) {
      await sql`insert into environments (project_id, name, slug, created_at, updated_at) values (${projectId}, ${name}, ${`slug-${index}`}, ${now}, ${now})`.execute(db);
    }

    await migrateToLatest(db, opened.dialect);

    const stored = await db.selectFrom('environments').select(['name', 'tier', 'auto_stop_at']).orderBy('id').execute();
    assert.deepEqual(stored, names.map((name) => ({ name, tier: environmentTier(name, null), auto_stop_at: null })));
    assert.deepEqual(stored.map((row) => row.tier), ['production', 'production', 'staging', 'staging', 'development', 'testing', 'other']);
  });
});
