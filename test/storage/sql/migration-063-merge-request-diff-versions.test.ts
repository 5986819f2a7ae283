/** Migration 063: each merge request refreshed before it gets one diff version from its current refs. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from '#deps/kysely';
import type { Db } from '../../../src/storage/sql/database.ts';
import { mergeRequestDiffVersions } from '../../../src/storage/sql/migrations/063-merge-request-diff-versions.ts';
import { databaseMigratedUpTo, insertOwnedProject } from '../../helpers/migration-database.ts';

const [HEAD, BASE, START] = ['a'.repeat(40), 'b'.repeat(40), 'c'.repeat(40)];

async function mergeRequest(db: Db, projectId: number, userId: number, iid: number, refs: { head: string | null; base: string | null; start: string | null }, updatedAt: string): Promise<number> {
  const inserted = await sql<{ id: number }>`insert into merge_requests (iid, project_id, source_project_id, source_branch, target_branch, author_id, title, state, merge_status, head_sha, base_sha, start_sha, created_at, updated_at)
    values (${iid}, ${projectId}, ${projectId}, ${`topic-${iid}`}, 'main', ${userId}, 'T', 'opened', 'unchecked', ${refs.head}, ${refs.base}, ${refs.start}, '2026-01-01T00:00:00.000Z', ${updatedAt}) returning id`.execute(db);
  return inserted.rows[0]!.id;
}

describe('migration 063', () => {
  const database = databaseMigratedUpTo('061-default-branch-rules');

  it('gives each request with a head and a target tip one version of those refs, state left to git; none to the others', async () => {
    const { db, dialect } = database();
    const { userId, projectId } = await insertOwnedProject(db, new Date().toISOString());
    const refreshed = await mergeRequest(db, projectId, userId, 1, { head: HEAD, base: BASE, start: START }, '2026-02-03T04:05:06.789Z');
    const unrelated = await mergeRequest(db, projectId, userId, 2, { head: HEAD, base: null, start: START }, '2026-02-04T00:00:00.000Z');
    await mergeRequest(db, projectId, userId, 3, { head: HEAD, base: null, start: null }, '2026-02-05T00:00:00.000Z');
    await mergeRequest(db, projectId, userId, 4, { head: null, base: null, start: null }, '2026-02-06T00:00:00.000Z');

    await mergeRequestDiffVersions.up(db, dialect);
    const rows = await db.selectFrom('merge_request_diff_versions').selectAll().orderBy('id').execute();
    assert.deepEqual(rows.map((row) => [Number(row.merge_request_id), row.head_commit_sha, row.base_commit_sha, row.start_commit_sha, row.state, row.real_size, row.created_at]), [
      [refreshed, HEAD, BASE, START, null, null, '2026-02-03T04:05:06.789Z'],
      [unrelated, HEAD, null, START, null, null, '2026-02-04T00:00:00.000Z'],
    ]);
    // Versions go with their request.
    await sql`delete from merge_requests where id = ${refreshed}`.execute(db);
    assert.deepEqual((await db.selectFrom('merge_request_diff_versions').select('merge_request_id').execute()).map((row) => Number(row.merge_request_id)), [unrelated]);
  });
});
