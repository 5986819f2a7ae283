import { sql } from '#deps/kysely';
import type { HookDeliveriesStore, HookDeliveryRecord, HookLogRecord, NewHookLog } from '../../types-hooks.ts';
import type { Db } from '../database.ts';

function parseObject(text: string): Record<string, string> {
  const parsed: unknown = JSON.parse(text);
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, string>) : {};
}

/** The status filter of GitLab's hook events list, as a range of response statuses. */
const STATUS_RANGES = { successful: ['200', '299'], client_failure: ['400', '499'], server_failure: ['500', '599'] } as const;

export class SqlHookDeliveriesStore implements HookDeliveriesStore {
  constructor(private readonly db: Db) {}

  async enqueue(deliveries: ReadonlyArray<{ hook_id: number; trigger: string; event: unknown; uuid: string }>, now: string): Promise<void> {
    if (deliveries.length === 0) return;
    // One statement: rows get ids in the order given, which is the order they are sent in.
    await this.db
      .insertInto('web_hook_deliveries')
      .values(deliveries.map((entry) => ({ hook_id: entry.hook_id, trigger: entry.trigger, event: JSON.stringify(entry.event), uuid: entry.uuid, attempts: 0, next_attempt_at: now, created_at: now })))
      .execute();
  }

  async next(hookId: number): Promise<HookDeliveryRecord | undefined> {
    const row = await this.db.selectFrom('web_hook_deliveries').selectAll().where('hook_id', '=', hookId).orderBy('id').limit(1).executeTakeFirst();
    return row ? { ...row, event: JSON.parse(row.event) as unknown } : undefined;
  }

  async postpone(id: number, attempts: number, nextAttemptAt: string): Promise<void> {
    await this.db.updateTable('web_hook_deliveries').set({ attempts, next_attempt_at: nextAttemptAt }).where('id', '=', id).execute();
  }

  async remove(id: number): Promise<void> {
    await this.db.deleteFrom('web_hook_deliveries').where('id', '=', id).execute();
  }

  async dropAll(hookId: number): Promise<number> {
    const result = await this.db.deleteFrom('web_hook_deliveries').where('hook_id', '=', hookId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async lease(hookId: number, owner: string, now: string, until: string): Promise<boolean> {
    const result = await this.db
      .updateTable('web_hooks')
      .set({ delivery_owner: owner, delivery_lease_until: until })
      .where('id', '=', hookId)
      .where((eb) => eb.or([eb('delivery_lease_until', 'is', null), eb('delivery_lease_until', '<', now), eb('delivery_owner', '=', owner)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async release(hookId: number, owner: string): Promise<void> {
    await this.db.updateTable('web_hooks').set({ delivery_owner: null, delivery_lease_until: null }).where('id', '=', hookId).where('delivery_owner', '=', owner).execute();
  }

  async releaseIfIdle(hookId: number, owner: string): Promise<boolean> {
    const result = await this.db
      .updateTable('web_hooks')
      .set({ delivery_owner: null, delivery_lease_until: null })
      .where('id', '=', hookId)
      .where('delivery_owner', '=', owner)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('web_hook_deliveries').select('id').where('hook_id', '=', hookId))))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async leaseEnd(hookId: number): Promise<string | null> {
    const row = await this.db.selectFrom('web_hooks').select('delivery_lease_until').where('id', '=', hookId).executeTakeFirst();
    return row?.delivery_lease_until ?? null;
  }

  async log(entry: NewHookLog, keep: number): Promise<void> {
    await this.db
      .insertInto('web_hook_logs')
      .values({ ...entry, request_headers: JSON.stringify(entry.request_headers), response_headers: JSON.stringify(entry.response_headers) })
      .execute();
    // Keep the newest `keep` entries of the hook (one statement: the cut-off found in it).
    await this.db
      .deleteFrom('web_hook_logs')
      .where('hook_id', '=', entry.hook_id)
      .where('id', '<=', (eb) => eb.selectFrom('web_hook_logs').select('id').where('hook_id', '=', entry.hook_id).orderBy('id', 'desc').offset(keep).limit(1))
      .execute();
  }

  async logs(hookId: number, filter: { status?: keyof typeof STATUS_RANGES }, page: { limit: number; offset: number }): Promise<{ logs: HookLogRecord[]; total: number }> {
    let query = this.db.selectFrom('web_hook_logs').where('hook_id', '=', hookId);
    if (filter.status) {
      const [low, high] = STATUS_RANGES[filter.status];
      // Statuses are kept as text ('internal error' when no answer came): compare three-digit ones only.
      query = query.where(sql<boolean>`length(response_status) = 3`).where('response_status', '>=', low).where('response_status', '<=', high);
    }
    const rows = await query.selectAll().orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
    const count = await query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
    return {
      logs: rows.map((row) => ({ ...row, execution_duration: Number(row.execution_duration), request_headers: parseObject(row.request_headers), response_headers: parseObject(row.response_headers) })),
      total: Number(count.total),
    };
  }
}
