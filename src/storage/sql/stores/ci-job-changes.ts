import { sql, type Updateable } from '#deps/kysely';
import { isAliveStatus, isCompletedStatus } from '../../../pipeline/statuses.ts';
import { timestampFieldFor, type JobTimestampField } from '../../../pipeline/transitions.ts';
import type { JobChange, JobCreation, JobStatus, JobUpdate } from '../../../pipeline/types.ts';
import { inTransaction, type Db } from '../database.ts';
import type { CiJobsTable } from '../schema-ci.ts';
import { StaleJobError, type AppliedJobChanges } from '../../types-ci-jobs.ts';

const TIMESTAMP_COLUMNS: Record<JobTimestampField, 'queued_at' | 'started_at' | 'finished_at'> = {
  queuedAt: 'queued_at',
  startedAt: 'started_at',
  finishedAt: 'finished_at',
};

/** Columns a retry's new job copies from the job it replaces (GitLab's clone accessors). */
const COPIED_COLUMNS = [
  'pipeline_id', 'project_id', 'stage_id', 'stage', 'stage_idx', 'name', 'type', 'when', 'allow_failure', 'tag_list', 'protected', 'ref',
  'sha', 'tag', 'definition', 'needs', 'retry', 'start_in_seconds', 'environment', 'target_url', 'description', 'resource_group',
  'environment_url', 'environment_auto_stop_in', 'environment_variables',
] as const;

const toIso = (epochMs: number | null | undefined): string | null => (epochMs === null || epochMs === undefined ? null : new Date(epochMs).toISOString());

/**
 * Persists the changes of one `handleEvent` call in one transaction: creations first (so the
 * caller learns their real ids), then updates grouped by identical patch, one UPDATE per
 * group, each guarded by the status processing saw.
 */
export async function applyJobChanges(
  db: Db,
  pipelineId: number,
  changes: readonly JobChange[],
  context: { now: string; userId?: number | null },
): Promise<AppliedJobChanges> {
  if (changes.length === 0) return { createdIds: new Map() };
  return inTransaction(db, async (trx) => {
    const createdIds = new Map<number, number>();
    const groups = new Map<string, JobUpdate[]>();
    for (const change of changes) {
      if (change.kind === 'create') {
        createdIds.set(change.job.id, await insertClone(trx, pipelineId, change, context));
      } else {
        const key = JSON.stringify([change.previousStatus, change.patch]);
        const group = groups.get(key);
        if (group) group.push(change);
        else groups.set(key, [change]);
      }
    }
    for (const group of groups.values()) await updateGroup(trx, pipelineId, group, context.now);
    return { createdIds };
  });
}

async function insertClone(trx: Db, pipelineId: number, creation: JobCreation, context: { now: string; userId?: number | null }): Promise<number> {
  const { job } = creation;
  const stamp = timestampFieldFor(job.status);
  const stamped = (column: string) => (stamp !== null && TIMESTAMP_COLUMNS[stamp] === column ? context.now : null);
  // Parameters in a SELECT list have no type on PostgreSQL: cast the non-text ones.
  const userId = context.userId === undefined ? sql<number | null>`user_id` : sql<number | null>`cast(${context.userId} as integer)`;
  const row = await trx
    .insertInto('ci_jobs')
    .columns([...COPIED_COLUMNS, 'status', 'retried', 'failure_reason', 'scheduled_at', 'user_id', 'created_at', 'updated_at', 'queued_at', 'started_at', 'finished_at'])
    .expression(
      trx
        .selectFrom('ci_jobs')
        .select([
          ...COPIED_COLUMNS,
          sql<string>`${job.status}`.as('status'),
          sql<number>`0`.as('retried'),
          sql<string | null>`${job.failureReason ?? null}`.as('failure_reason'),
          sql<string | null>`${toIso(job.scheduledAt)}`.as('scheduled_at'),
          userId.as('user_id'),
          sql<string>`${context.now}`.as('created_at'),
          sql<string>`${context.now}`.as('updated_at'),
          sql<string | null>`${stamped('queued_at')}`.as('queued_at'),
          sql<string | null>`${stamped('started_at')}`.as('started_at'),
          sql<string | null>`${stamped('finished_at')}`.as('finished_at'),
        ])
        .where('id', '=', creation.cloneOf)
        .where('pipeline_id', '=', pipelineId),
    )
    .returning('id')
    .executeTakeFirst();
  if (!row) throw new StaleJobError(creation.cloneOf);
  return row.id;
}

async function updateGroup(trx: Db, pipelineId: number, group: readonly JobUpdate[], now: string): Promise<void> {
  const { patch, previousStatus } = group[0];
  const set: Updateable<CiJobsTable> = { updated_at: now };
  if (patch.status !== undefined) {
    set.status = patch.status;
    const stamp = timestampFieldFor(patch.status);
    if (stamp !== null) set[TIMESTAMP_COLUMNS[stamp]] = now;
    // A finished bridge running again with its retried downstream pipeline is no longer finished.
    if (isCompletedStatus(previousStatus) && isAliveStatus(patch.status)) set.finished_at = null;
  }
  if (patch.retried !== undefined) set.retried = patch.retried ? 1 : 0;
  if (patch.failureReason !== undefined) set.failure_reason = patch.failureReason;
  if (patch.scheduledAt !== undefined) set.scheduled_at = toIso(patch.scheduledAt);
  const ids = group.map((change) => change.jobId);
  const result = await trx
    .updateTable('ci_jobs')
    .set({ ...set, lock_version: sql<number>`lock_version + 1` })
    .where('pipeline_id', '=', pipelineId)
    .where('id', 'in', ids)
    .where('status', '=', previousStatus)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== ids.length) throw new StaleJobError(await firstStale(trx, ids, previousStatus));
}

async function firstStale(trx: Db, ids: readonly number[], expected: JobStatus): Promise<number> {
  const rows = await trx.selectFrom('ci_jobs').select(['id', 'status']).where('id', 'in', [...ids]).execute();
  const found = new Map(rows.map((row) => [row.id, row.status]));
  return ids.find((id) => found.get(id) !== expected) ?? ids[0];
}
