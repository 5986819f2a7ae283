import { sql } from '#deps/kysely';
import { dialectOf, inTransaction, isUniqueViolation, type Db } from '../database.ts';
import type { NewTask, TaskClaim, TaskKindCounts, TaskKindTotals, TaskRecord, TasksStore, TaskStatus } from '../../types-tasks.ts';

const DEFAULT_MAX_ATTEMPTS = 5;
/** Expired leases handled per call. */
const RELEASE_BATCH = 500;

type TaskRow = Omit<TaskRecord, 'payload' | 'status'> & { payload: string; status: string };

const toTask = (row: TaskRow): TaskRecord => ({ ...row, status: row.status as TaskStatus, payload: JSON.parse(row.payload) as unknown });

/** The row of a task just enqueued: pending, never attempted. */
function newTaskRow(task: NewTask, now: string) {
  return {
    kind: task.kind,
    payload: JSON.stringify(task.payload ?? null),
    status: 'pending',
    run_at: task.runAt ?? now,
    attempts: 0,
    max_attempts: task.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    dedupe_key: task.dedupeKey ?? null,
    created_at: now,
    updated_at: now,
  } as const;
}

/**
 * The durable task queue. Status literals stay literal in the SQL (not parameters), so both
 * backends can use the partial indexes on `status = 'pending'` / `'running'`.
 */
export class SqlTasksStore implements TasksStore {
  constructor(private readonly db: Db) {}

  async enqueue(task: NewTask, now: string): Promise<{ task: TaskRecord; deduplicated: boolean }> {
    const values = newTaskRow(task, now);
    if (task.dedupeKey === undefined) {
      return { task: toTask(await this.db.insertInto('tasks').values(values).returningAll().executeTakeFirstOrThrow()), deduplicated: false };
    }
    // The pending twin may be claimed between our insert and our look-up: try again then.
    for (let attempt = 0; attempt < 5; attempt++) {
      const inserted = await this.db
        .insertInto('tasks')
        .values(values)
        .onConflict((conflict) => conflict.column('dedupe_key').where(sql<boolean>`status = 'pending' and dedupe_key is not null`).doNothing())
        .returningAll()
        .executeTakeFirst();
      if (inserted) return { task: toTask(inserted), deduplicated: false };
      const twin = await this.db
        .selectFrom('tasks')
        .selectAll()
        .where(sql<boolean>`status = 'pending'`)
        .where('dedupe_key', '=', task.dedupeKey)
        .executeTakeFirst();
      if (twin) return { task: toTask(twin), deduplicated: true };
    }
    throw new Error(`could not enqueue task ${task.kind} (dedupe key ${task.dedupeKey})`);
  }

  async enqueueAll(tasks: readonly NewTask[], now: string): Promise<void> {
    if (tasks.length === 0) return;
    // One statement; a task whose key a pending task has already is left out (that one will run).
    await this.db
      .insertInto('tasks')
      .values(tasks.map((task) => newTaskRow(task, now)))
      .onConflict((conflict) => conflict.column('dedupe_key').where(sql<boolean>`status = 'pending' and dedupe_key is not null`).doNothing())
      .execute();
  }

  async claim(claim: TaskClaim): Promise<TaskRecord | undefined> {
    if (claim.kinds !== undefined && claim.kinds.length === 0) return undefined;
    const kinds = claim.kinds === undefined ? sql`` : sql`AND kind IN (${sql.join([...claim.kinds])})`;
    const lock = dialectOf(this.db) === 'postgres' ? sql`FOR UPDATE SKIP LOCKED` : sql``;
    const result = await sql<TaskRow>`
      UPDATE tasks
      SET status = 'running', locked_by = ${claim.owner}, locked_until = ${claim.lockedUntil}, attempts = attempts + 1, updated_at = ${claim.now}
      WHERE id = (SELECT id FROM tasks WHERE status = 'pending' AND run_at <= ${claim.now} ${kinds} ORDER BY run_at, id LIMIT 1 ${lock})
        AND status = 'pending'
      RETURNING *
    `.execute(this.db);
    const row = result.rows[0];
    return row && toTask(row);
  }

  async complete(id: number, owner: string): Promise<boolean> {
    return this.remove(id, owner, false);
  }

  async fail(id: number, owner: string, error: string, retryAt: string | null, now: string): Promise<boolean> {
    try {
      return await inTransaction(this.db, async (trx) => {
        const updated = await trx
          .updateTable('tasks')
          .set({ status: retryAt === null ? 'dead' : 'pending', locked_by: null, locked_until: null, last_error: error, updated_at: now, ...(retryAt === null ? {} : { run_at: retryAt }) })
          .where('id', '=', id)
          .where(sql<boolean>`status = 'running'`)
          .where('locked_by', '=', owner)
          .returning('kind')
          .executeTakeFirst();
        if (updated) await count(trx, updated.kind, true);
        return updated !== undefined;
      });
    } catch (caught) {
      // A pending twin (same dedupe key) was enqueued meanwhile: it does this work; drop this one.
      if (!isUniqueViolation(caught)) throw caught;
      return this.remove(id, owner, true);
    }
  }

  private remove(id: number, owner: string, failed: boolean): Promise<boolean> {
    return inTransaction(this.db, async (trx) => {
      const removed = await trx.deleteFrom('tasks').where('id', '=', id).where(sql<boolean>`status = 'running'`).where('locked_by', '=', owner).returning('kind').executeTakeFirst();
      if (removed) await count(trx, removed.kind, failed);
      return removed !== undefined;
    });
  }

  async extend(id: number, owner: string, lockedUntil: string): Promise<boolean> {
    const result = await this.db
      .updateTable('tasks')
      .set({ locked_until: lockedUntil })
      .where('id', '=', id)
      .where(sql<boolean>`status = 'running'`)
      .where('locked_by', '=', owner)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async releaseExpired(now: string): Promise<number> {
    return inTransaction(this.db, async (trx) => {
      const expired = await trx
        .selectFrom('tasks')
        .select(['id', 'attempts', 'max_attempts', 'dedupe_key', 'locked_by'])
        .where(sql<boolean>`status = 'running'`)
        .where('locked_until', '<', now)
        .orderBy('id', 'desc')
        .limit(RELEASE_BATCH)
        .execute();
      if (expired.length === 0) return 0;
      const keys = [...new Set(expired.flatMap((task) => (task.dedupe_key === null ? [] : [task.dedupe_key])))];
      const taken = new Set(
        keys.length === 0
          ? []
          : (await trx.selectFrom('tasks').select('dedupe_key').where(sql<boolean>`status = 'pending'`).where('dedupe_key', 'in', keys).execute()).map((row) => row.dedupe_key),
      );
      const dead: number[] = [];
      const dropped: number[] = [];
      const revived: number[] = [];
      // Newest first: of several expired tasks with one key, the newest is revived.
      for (const task of expired) {
        if (task.attempts >= task.max_attempts) dead.push(task.id);
        else if (task.dedupe_key !== null && taken.has(task.dedupe_key)) dropped.push(task.id);
        else {
          revived.push(task.id);
          if (task.dedupe_key !== null) taken.add(task.dedupe_key);
        }
      }
      const stillExpired = (ids: number[]) =>
        trx.updateTable('tasks').where('id', 'in', ids).where(sql<boolean>`status = 'running'`).where('locked_until', '<', now);
      const release = { locked_by: null, locked_until: null, updated_at: now, last_error: 'lease expired' };
      let count = 0;
      if (dead.length > 0) count += Number((await stillExpired(dead).set({ ...release, status: 'dead' }).executeTakeFirst()).numUpdatedRows);
      if (revived.length > 0) count += Number((await stillExpired(revived).set({ ...release, status: 'pending' }).executeTakeFirst()).numUpdatedRows);
      if (dropped.length > 0) {
        const result = await trx.deleteFrom('tasks').where('id', 'in', dropped).where(sql<boolean>`status = 'running'`).where('locked_until', '<', now).executeTakeFirst();
        count += Number(result.numDeletedRows);
      }
      return count;
    });
  }

  async findById(id: number): Promise<TaskRecord | undefined> {
    const row = await this.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toTask(row);
  }

  async nextRunAt(kinds?: readonly string[]): Promise<string | undefined> {
    if (kinds !== undefined && kinds.length === 0) return undefined;
    let query = this.db.selectFrom('tasks').select('run_at').where(sql<boolean>`status = 'pending'`);
    if (kinds !== undefined) query = query.where('kind', 'in', [...kinds]);
    const row = await query.orderBy('run_at').limit(1).executeTakeFirst();
    return row?.run_at;
  }

  async counts(now: string): Promise<TaskKindCounts[]> {
    const result = await sql<{ kind: string; ready: number; scheduled: number; running: number; dead: number; retrying: number; oldest_ready_at: string | null }>`
      SELECT kind,
        sum(CASE WHEN status = 'pending' AND run_at <= ${now} THEN 1 ELSE 0 END) AS ready,
        sum(CASE WHEN status = 'pending' AND run_at > ${now} THEN 1 ELSE 0 END) AS scheduled,
        sum(CASE WHEN status = 'running' THEN 1 ELSE 0 END) AS running,
        sum(CASE WHEN status = 'dead' THEN 1 ELSE 0 END) AS dead,
        sum(CASE WHEN (status = 'pending' AND attempts > 0) OR (status = 'running' AND attempts > 1) THEN 1 ELSE 0 END) AS retrying,
        min(CASE WHEN status = 'pending' AND run_at <= ${now} THEN run_at END) AS oldest_ready_at
      FROM tasks GROUP BY kind ORDER BY kind
    `.execute(this.db);
    return result.rows.map((row) => ({
      kind: row.kind,
      ready: Number(row.ready),
      scheduled: Number(row.scheduled),
      running: Number(row.running),
      dead: Number(row.dead),
      retrying: Number(row.retrying),
      oldest_ready_at: row.oldest_ready_at,
    }));
  }

  async totals(): Promise<TaskKindTotals[]> {
    const rows = await this.db.selectFrom('task_counters').selectAll().orderBy('kind').execute();
    return rows.map((row) => ({ kind: row.kind, processed: Number(row.processed), failed: Number(row.failed) }));
  }

  async runningByOwner(): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('tasks')
      .select(['locked_by', (eb) => eb.fn.countAll<number>().as('running')])
      .where(sql<boolean>`status = 'running'`)
      .groupBy('locked_by')
      .execute();
    return new Map(rows.flatMap((row) => (row.locked_by === null ? [] : [[row.locked_by, Number(row.running)] as const])));
  }

  async listDead(limit: number): Promise<TaskRecord[]> {
    const rows = await this.db.selectFrom('tasks').selectAll().where(sql<boolean>`status = 'dead'`).orderBy('updated_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map(toTask);
  }
}

/** One attempt of `kind` ended (and failed, or not). */
async function count(trx: Db, kind: string, failed: boolean): Promise<void> {
  await trx
    .insertInto('task_counters')
    .values({ kind, processed: 1, failed: failed ? 1 : 0 })
    .onConflict((conflict) =>
      conflict.column('kind').doUpdateSet({ processed: sql<number>`task_counters.processed + 1`, failed: sql<number>`task_counters.failed + excluded.failed` }),
    )
    .execute();
}
