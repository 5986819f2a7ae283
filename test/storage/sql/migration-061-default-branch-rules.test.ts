/** Migration 061: each project's default branch keeps the protection the setting gave it, as a rule of its own. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from '#deps/kysely';
import type { Db } from '../../../src/storage/sql/database.ts';
import { defaultBranchRules } from '../../../src/storage/sql/migrations/061-default-branch-rules.ts';
import { databaseMigratedUpTo, insertOwnedProject } from '../../helpers/migration-database.ts';

async function project(db: Db, namespaceId: number, userId: number, path: string, defaultBranch: string | null, now: string): Promise<number> {
  const inserted = await sql<{ id: number }>`insert into projects (namespace_id, creator_id, name, path, visibility, runners_token, default_branch, created_at, updated_at, last_activity_at) values (${namespaceId}, ${userId}, ${path}, ${path}, 'private', ${`rt-${path}`}, ${defaultBranch}, ${now}, ${now}, ${now}) returning id`.execute(db);
  return inserted.rows[0]!.id;
}

async function rule(db: Db, projectId: number, name: string, level: number, now: string): Promise<void> {
  await sql`insert into protected_branches (project_id, name, push_access_level, merge_access_level, allow_force_push, created_at, updated_at) values (${projectId}, ${name}, ${level}, ${level}, 0, ${now}, ${now})`.execute(db);
}

async function rules(db: Db): Promise<Array<[number, string, number, number]>> {
  const rows = await db.selectFrom('protected_branches').select(['project_id', 'name', 'push_access_level', 'merge_access_level']).orderBy('project_id').orderBy('name').execute();
  return rows.map((row) => [Number(row.project_id), row.name, Number(row.push_access_level), Number(row.merge_access_level)]);
}

describe('migration 061', () => {
  const database = databaseMigratedUpTo('060-ci-variable-description-raw-hidden');

  it('gives each default branch no rule covers the levels of default_branch_protection, and nothing else', async () => {
    const { db, dialect } = database();
    const now = new Date().toISOString();
    const { userId, namespaceId, projectId: plain } = await insertOwnedProject(db, now);
    await sql`update projects set default_branch = 'main' where id = ${plain}`.execute(db);
    const wildcarded = await project(db, namespaceId, userId, 'wild', 'release/2', now);
    await rule(db, wildcarded, 'release/*', 30, now);
    const exact = await project(db, namespaceId, userId, 'exact', 'master', now);
    await rule(db, exact, 'master', 30, now);
    await project(db, namespaceId, userId, 'empty', null, now);
    const other = await project(db, namespaceId, userId, 'other', 'trunk', now);
    await rule(db, other, 'tr*x', 30, now);

    await defaultBranchRules.up(db, dialect);
    assert.deepEqual(await rules(db), [
      [plain, 'main', 40, 40],
      [wildcarded, 'release/*', 30, 30],
      [exact, 'master', 30, 30],
      [other, 'tr*x', 30, 30],
      [other, 'trunk', 40, 40],
    ]);
  });

  it('adds none when the setting protects no default branch', async () => {
    const { db, dialect } = database();
    await sql`delete from protected_branches`.execute(db);
    const now = new Date().toISOString();
    await sql`insert into application_settings (id, settings, created_at, updated_at) values (1, ${JSON.stringify({ default_branch_protection: 0 })}, ${now}, ${now})`.execute(db);
    await defaultBranchRules.up(db, dialect);
    assert.deepEqual(await rules(db), []);
  });
});
