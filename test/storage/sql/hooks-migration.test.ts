import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from '#deps/kysely';
import { migrateToLatest } from '../../../src/storage/sql/migrate.ts';
import { databaseMigratedUpTo, insertOwnedProject } from '../../helpers/migration-database.ts';

describe('migration 037 (group and system hooks)', () => {
  const database = databaseMigratedUpTo('036-key-sha256-fingerprints');

  it('keeps project hooks with their queued deliveries and logs, and then takes system and group hooks', async () => {
    const { db, dialect } = database();
    const now = new Date().toISOString();
    const { namespaceId, projectId } = await insertOwnedProject(db, now);
    const hook = await sql<{ id: number }>`insert into web_hooks (project_id, url, push_events, created_at) values (${projectId}, 'https://hooks.example.com/', 1, ${now}) returning id`.execute(db);
    const hookId = hook.rows[0]!.id;
    await sql`insert into web_hook_deliveries (hook_id, trigger, event, uuid, next_attempt_at, created_at) values (${hookId}, 'push_hooks', '{}', 'u-1', ${now}, ${now})`.execute(db);
    await sql`insert into web_hook_logs (hook_id, trigger, url, request_headers, request_data, response_status, response_headers, response_body, execution_duration, created_at) values (${hookId}, 'push_hooks', 'https://hooks.example.com/', '{}', '{}', '200', '{}', '', 0.5, ${now})`.execute(db);

    await migrateToLatest(db, dialect);

    const kept = await db.selectFrom('web_hooks').selectAll().where('id', '=', hookId).executeTakeFirstOrThrow();
    assert.deepEqual([kept.kind, kept.project_id, kept.group_id, kept.push_events, kept.url], ['project', projectId, null, 1, 'https://hooks.example.com/']);
    // Migration 039's group hook flags: off on existing hooks.
    assert.deepEqual([kept.subgroup_events, kept.member_events], [0, 0]);
    assert.equal((await db.selectFrom('web_hook_deliveries').select('uuid').where('hook_id', '=', hookId).execute()).length, 1);
    assert.equal((await db.selectFrom('web_hook_logs').select('id').where('hook_id', '=', hookId).execute()).length, 1);
    const system = await db.insertInto('web_hooks').values({ kind: 'system', project_id: null, url: 'https://system.example.com/', created_at: now } as never).returning('id').executeTakeFirstOrThrow();
    const group = await db.insertInto('web_hooks').values({ kind: 'group', group_id: namespaceId, url: 'https://group.example.com/', created_at: now } as never).returning('id').executeTakeFirstOrThrow();
    assert.ok(system.id > hookId && group.id > system.id);
    // The children still cascade from the rebuilt parent.
    await db.deleteFrom('web_hooks').where('id', '=', hookId).execute();
    assert.equal((await db.selectFrom('web_hook_deliveries').select('id').execute()).length, 0);
    assert.equal((await db.selectFrom('web_hook_logs').select('id').execute()).length, 0);
    // A group's deletion takes its hooks.
    await db.deleteFrom('projects').execute();
    await db.deleteFrom('namespaces').where('id', '=', namespaceId).execute();
    assert.deepEqual((await db.selectFrom('web_hooks').select('kind').execute()).map((row) => row.kind), ['system']);
  });
});
