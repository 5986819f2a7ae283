import { sql } from '#deps/kysely';
import type { Db } from '../database.ts';

/**
 * The project's next number for `usage` (pipeline, deployment, issue, merge request and milestone iids), from a counter row
 * bumped by one upsert: concurrent callers queue on that row (PostgreSQL) or on the write
 * lock (SQLite), so no two get the same value. Within a transaction the row stays locked
 * until it ends, which keeps iids in commit order.
 */
export async function nextInternalId(db: Db, projectId: number, usage: 'ci_pipelines' | 'deployments' | 'issues' | 'merge_requests' | 'milestones'): Promise<number> {
  const row = await db
    .insertInto('internal_ids')
    .values({ project_id: projectId, usage, last_value: 1 })
    .onConflict((conflict) => conflict.columns(['project_id', 'usage']).doUpdateSet({ last_value: sql<number>`internal_ids.last_value + 1` }))
    .returning('last_value')
    .executeTakeFirstOrThrow();
  return Number(row.last_value);
}
