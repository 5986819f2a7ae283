/** Migration 057: a project's resource groups as records, made for the keys its jobs already name. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from '#deps/kysely';
import { migrateToLatest } from '../../../src/storage/sql/migrate.ts';
import { SecretBox } from '../../../src/storage/secret-box.ts';
import { SqlResourceGroupsStore } from '../../../src/storage/sql/stores/ci-resource-groups.ts';
import { databaseMigratedUpTo, insertOwnedProject } from '../../helpers/migration-database.ts';

describe('migration 057 (resource groups)', () => {
  const database = databaseMigratedUpTo('056-environment-merge-request');

  it("makes one unordered group per project and key of the existing jobs, dated by its first job; later jobs' groups are made once", async () => {
    const { db, dialect } = database();
    const now = '2026-01-01T00:00:00.000Z';
    const { projectId } = await insertOwnedProject(db, now);
    const pipeline = await sql<{ id: number }>`
      insert into ci_pipelines (iid, project_id, ref, sha, before_sha, source, status, created_at, updated_at)
      values (1, ${projectId}, 'main', ${'a'.repeat(40)}, ${'0'.repeat(40)}, 'push', 'success', ${now}, ${now}) returning id`.execute(db);
    const jobs: Array<[string, string | null, string]> = [
      ['deploy', 'production', '2026-01-02T00:00:00.000Z'], ['again', 'production', '2026-01-03T00:00:00.000Z'], ['review', 'review/main', '2026-01-04T00:00:00.000Z'], ['test', null, now],
    ];
    for (const [name, group, createdAt] of jobs) {
      await sql`
        insert into ci_jobs (pipeline_id, project_id, stage, stage_idx, name, type, status, "when", ref, sha, resource_group, created_at, updated_at)
        values (${pipeline.rows[0]!.id}, ${projectId}, 'deploy', 0, ${name}, 'build', 'success', 'on_success', 'main', ${'a'.repeat(40)}, ${group}, ${createdAt}, ${createdAt})`.execute(db);
    }

    await migrateToLatest(db, dialect);

    const store = new SqlResourceGroupsStore(db, SecretBox.ephemeral());
    const { items, total } = await store.list(projectId, { offset: 0, limit: 20 });
    assert.equal(total, 2);
    assert.deepEqual(items.map(({ key, process_mode, created_at, updated_at }) => ({ key, process_mode, created_at, updated_at })), [
      { key: 'production', process_mode: 'unordered', created_at: '2026-01-02T00:00:00.000Z', updated_at: '2026-01-02T00:00:00.000Z' },
      { key: 'review/main', process_mode: 'unordered', created_at: '2026-01-04T00:00:00.000Z', updated_at: '2026-01-04T00:00:00.000Z' },
    ]);

    const later = '2026-02-01T00:00:00.000Z';
    await store.ensure(projectId, ['production', 'staging', 'staging'], later);
    const production = await store.findByKey(projectId, 'production');
    assert.equal(production?.created_at, '2026-01-02T00:00:00.000Z', 'an existing group stays as it was');
    assert.equal((await store.findByKey(projectId, 'staging'))?.created_at, later);
    const changed = await store.setProcessMode(production!.id, 'oldest_first', later);
    assert.deepEqual([changed?.process_mode, changed?.updated_at], ['oldest_first', later]);
    await store.ensure(projectId, ['production'], '2026-03-01T00:00:00.000Z');
    assert.equal((await store.findByKey(projectId, 'production'))?.process_mode, 'oldest_first', 'a new job keeps the mode');
  });
});
