import { sql } from '#deps/kysely';
import { toBoolean, type Db } from '../database.ts';
import type { CiJobCounts, MonitoringStore, RunnerContactCount } from '../../types-monitoring.ts';

/**
 * The database side of /-/readiness and /-/metrics. Status literals stay literal in the SQL so
 * both backends count through the partial indexes `ci_jobs_queue` (pending builds) and
 * `ci_jobs_running_updated` (running jobs) and `ci_jobs_waiting_for_resource`: a scrape costs what the queue holds, not what
 * `ci_jobs` holds.
 */
export class SqlMonitoringStore implements MonitoringStore {
  constructor(private readonly db: Db) {}

  async ping(): Promise<void> {
    const result = await sql<{ one: number }>`SELECT 1 AS one`.execute(this.db);
    if (Number(result.rows[0]?.one) !== 1) throw new Error(`unexpected answer to SELECT 1: ${JSON.stringify(result.rows)}`);
  }

  async ciJobCounts(): Promise<CiJobCounts> {
    const pending = await sql<{ count: number; oldest: string | null }>`
      SELECT count(*) AS count, min(queued_at) AS oldest FROM ci_jobs WHERE status = 'pending' AND type = 'build'
    `.execute(this.db);
    const running = await sql<{ count: number }>`
      SELECT count(*) AS count FROM ci_jobs WHERE status = 'running' AND type = 'build'
    `.execute(this.db);
    const waiting = await sql<{ count: number }>`
      SELECT count(*) AS count FROM ci_jobs WHERE status = 'waiting_for_resource' AND type = 'build'
    `.execute(this.db);
    return {
      pending: Number(pending.rows[0]?.count ?? 0),
      running: Number(running.rows[0]?.count ?? 0),
      waitingForResource: Number(waiting.rows[0]?.count ?? 0),
      oldestPendingQueuedAt: pending.rows[0]?.oldest ?? null,
    };
  }

  async runnerContactCounts(recentSince: string): Promise<RunnerContactCount[]> {
    const result = await sql<{ runner_type: string; active: number | boolean; contact: RunnerContactCount['contact']; count: number }>`
      SELECT runner_type, active,
        CASE WHEN contacted_at IS NULL THEN 'never' WHEN contacted_at > ${recentSince} THEN 'recent' ELSE 'earlier' END AS contact,
        count(*) AS count
      FROM ci_runners GROUP BY runner_type, active, 3 ORDER BY runner_type
    `.execute(this.db);
    return result.rows.map((row) => ({ runner_type: row.runner_type, active: toBoolean(row.active), contact: row.contact, count: Number(row.count) }));
  }
}
