import { sql, type RawBuilder } from '#deps/kysely';
import { dialectOf, type Db } from '../database.ts';
import type { InstallationStore, InstanceRecord, InstancesStore, NewInstance, ThrottleCountersStore } from '../../types-instances.ts';

/**
 * The database's clock in milliseconds since the epoch, one value for the whole statement:
 * every coordinator compares heartbeats and windows against the same clock.
 */
function databaseNowMs(db: Db): RawBuilder<number> {
  return dialectOf(db) === 'postgres'
    ? sql<number>`(extract(epoch from statement_timestamp()) * 1000)::bigint`
    : sql<number>`cast((julianday('now') - 2440587.5) * 86400000 as integer)`;
}

const toInstance = (row: InstanceRecord): InstanceRecord => ({ ...row, pid: Number(row.pid), heartbeat_at_ms: Number(row.heartbeat_at_ms) });

export class SqlInstancesStore implements InstancesStore {
  constructor(private readonly db: Db) {}

  async register(instance: NewInstance): Promise<void> {
    await this.db.insertInto('coordinator_instances').values({ ...instance, heartbeat_at_ms: databaseNowMs(this.db) }).execute();
  }

  async heartbeat(id: string): Promise<boolean> {
    const result = await this.db.updateTable('coordinator_instances').set({ heartbeat_at_ms: databaseNowMs(this.db) }).where('id', '=', id).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async live(staleAfterMs: number): Promise<InstanceRecord[]> {
    const rows = await this.db
      .selectFrom('coordinator_instances')
      .selectAll()
      .where('heartbeat_at_ms', '>=', sql<number>`${databaseNowMs(this.db)} - ${staleAfterMs}`)
      .orderBy('started_at')
      .execute();
    return rows.map(toInstance);
  }

  async list(): Promise<InstanceRecord[]> {
    return (await this.db.selectFrom('coordinator_instances').selectAll().orderBy('started_at').execute()).map(toInstance);
  }

  async removeIfStale(id: string, staleAfterMs: number | null): Promise<boolean> {
    let query = this.db.deleteFrom('coordinator_instances').where('id', '=', id);
    if (staleAfterMs !== null) query = query.where('heartbeat_at_ms', '<', sql<number>`${databaseNowMs(this.db)} - ${staleAfterMs}`);
    return Number((await query.executeTakeFirst()).numDeletedRows) > 0;
  }

  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('coordinator_instances').where('id', '=', id).execute();
  }

  async expireTaskLeases(id: string): Promise<number> {
    const result = await this.db
      .updateTable('tasks')
      .set({ locked_until: new Date(0).toISOString() })
      .where(sql<boolean>`status = 'running'`)
      .where('locked_by', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async takeOverPendingProject(projectId: number, from: string | null, to: string): Promise<boolean> {
    const result = await this.db
      .updateTable('projects')
      .set({ pending_instance_id: to })
      .where('id', '=', projectId)
      .where('pending_delete', '=', 1)
      .where('pending_instance_id', from === null ? 'is' : '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}

export class SqlInstallationStore implements InstallationStore {
  constructor(private readonly db: Db) {}

  async find(): Promise<string | undefined> {
    const row = await this.db.selectFrom('gantry_installation').select('installation_id').where('id', '=', 1).executeTakeFirst();
    return row?.installation_id;
  }

  async create(installationId: string, now: string): Promise<string> {
    await this.db
      .insertInto('gantry_installation')
      .values({ id: 1, installation_id: installationId, created_at: now })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
    const recorded = await this.find();
    if (recorded === undefined) throw new Error('the installation id vanished after it was written');
    return recorded;
  }
}

export class SqlThrottleCountersStore implements ThrottleCountersStore {
  constructor(private readonly db: Db) {}

  async hit(key: string, windowMs: number): Promise<{ hits: number; remainingMs: number }> {
    // One statement: a window that ended starts again at 1, an open one counts up. The row
    // lock of the upsert orders concurrent hits from every coordinator. A period shortened
    // meanwhile ends an open window at most `windowMs` from now (the in-memory store, which
    // measures from the window's start, does the same for one coordinator).
    const now = databaseNowMs(this.db);
    const { rows } = await sql<{ hits: number; remaining_ms: number }>`
      INSERT INTO throttle_counters AS counter (key, hits, window_ends_at_ms)
      VALUES (${key}, 1, ${now} + ${windowMs})
      ON CONFLICT (key) DO UPDATE SET
        hits = CASE WHEN counter.window_ends_at_ms <= ${now} THEN 1 ELSE counter.hits + 1 END,
        window_ends_at_ms = CASE WHEN counter.window_ends_at_ms <= ${now} THEN excluded.window_ends_at_ms
          ELSE LEAST(counter.window_ends_at_ms, excluded.window_ends_at_ms) END
      RETURNING hits, window_ends_at_ms - ${now} AS remaining_ms`.execute(this.db);
    const row = rows[0];
    if (!row) throw new Error(`throttle counter ${key} answered no row`);
    return { hits: Number(row.hits), remainingMs: Math.max(0, Number(row.remaining_ms)) };
  }

  async deleteEnded(): Promise<number> {
    const result = await this.db.deleteFrom('throttle_counters').where('window_ends_at_ms', '<=', databaseNowMs(this.db)).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
