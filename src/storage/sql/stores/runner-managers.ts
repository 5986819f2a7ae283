import type { Db } from '../database.ts';
import type { RunnerManagerRecord, RunnerManagerReport, RunnerManagersStore } from '../../types-runners.ts';
import { ColumnKinds } from './row-mapping.ts';

const MANAGER_KINDS = new ColumnKinds<RunnerManagerRecord>({ features: 'json' });

const SELECT = [
  'id', 'runner_id', 'system_id', 'name', 'version', 'revision', 'platform', 'architecture', 'executor', 'ip_address', 'features',
  'created_at', 'contacted_at',
] as const;

const toManager = (row: object) => MANAGER_KINDS.toRecord(row);

/** Runner managers (`ci_runner_managers`, migration 021): one row per (runner, system id). */
export class SqlRunnerManagersStore implements RunnerManagersStore {
  constructor(private readonly db: Db) {}

  async record(runnerId: number, systemId: string, report: RunnerManagerReport, contactedAt: string): Promise<RunnerManagerRecord> {
    const reported = MANAGER_KINDS.toColumns(report);
    const row = await this.db
      .insertInto('ci_runner_managers')
      .values({ runner_id: runnerId, system_id: systemId, ...reported, created_at: contactedAt, contacted_at: contactedAt })
      .onConflict((conflict) => conflict.columns(['runner_id', 'system_id']).doUpdateSet({ ...reported, contacted_at: contactedAt }))
      .returning(SELECT)
      .executeTakeFirstOrThrow();
    return toManager(row);
  }

  async find(runnerId: number, systemId: string): Promise<RunnerManagerRecord | undefined> {
    const row = await this.db.selectFrom('ci_runner_managers').select(SELECT).where('runner_id', '=', runnerId).where('system_id', '=', systemId).executeTakeFirst();
    return row && toManager(row);
  }

  async listByRunner(runnerId: number): Promise<RunnerManagerRecord[]> {
    const rows = await this.db
      .selectFrom('ci_runner_managers')
      .select(SELECT)
      .where('runner_id', '=', runnerId)
      .orderBy('contacted_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toManager);
  }

  async delete(runnerId: number, systemId: string): Promise<boolean> {
    const result = await this.db.deleteFrom('ci_runner_managers').where('runner_id', '=', runnerId).where('system_id', '=', systemId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
