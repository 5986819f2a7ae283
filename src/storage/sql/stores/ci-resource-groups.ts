import { sql } from '#deps/kysely';
import { isResourceGroupProcessMode, pipelineOrder, upcomingStatuses, type ResourceGroupProcessMode } from '../../../pipeline/resource-group-modes.ts';
import { countAll, type Db } from '../database.ts';
import type { SecretBox } from '../../secret-box.ts';
import type { Page } from '../../types-ci.ts';
import type { JobRecord } from '../../types-ci-jobs.ts';
import type { ResourceGroupRecord, ResourceGroupsStore } from '../../types-resource-groups.ts';
import type { CiResourceGroupsTable } from '../schema-ci.ts';
import { JOB_SELECT, toJob } from './ci-job-rows.ts';

type Row = Omit<CiResourceGroupsTable, 'id'> & { id: number };

/** A job of a group holds its resource from the assignment (pending) until it completes. */
export const RESOURCE_HOLDING_STATUSES = ['pending', 'running', 'canceling'] as const;

/** A mode this version does not know (written by a newer one) is served as the default. */
function toResourceGroup(row: Row): ResourceGroupRecord {
  return { ...row, process_mode: isResourceGroupProcessMode(row.process_mode) ? row.process_mode : 'unordered' };
}

export class SqlResourceGroupsStore implements ResourceGroupsStore {
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {}

  async ensure(projectId: number, keys: readonly string[], now: string): Promise<void> {
    // Sorted: concurrent creations then take the unique index's locks in one order (no deadlock on PostgreSQL).
    const distinct = [...new Set(keys)].sort();
    if (distinct.length === 0) return;
    await this.db
      .insertInto('ci_resource_groups')
      .values(distinct.map((key) => ({ project_id: projectId, key, process_mode: 'unordered', created_at: now, updated_at: now })))
      .onConflict((conflict) => conflict.columns(['project_id', 'key']).doNothing())
      .execute();
  }

  async list(projectId: number, page: Page): Promise<{ items: ResourceGroupRecord[]; total: number }> {
    const query = this.db.selectFrom('ci_resource_groups').where('project_id', '=', projectId);
    const counted = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const rows = await query.selectAll().orderBy('id').offset(page.offset).limit(page.limit).execute();
    return { items: rows.map(toResourceGroup), total: Number(counted.total) };
  }

  async findByKey(projectId: number, key: string): Promise<ResourceGroupRecord | undefined> {
    const row = await this.db.selectFrom('ci_resource_groups').selectAll().where('project_id', '=', projectId).where('key', '=', key).executeTakeFirst();
    return row && toResourceGroup(row);
  }

  async setProcessMode(id: number, mode: ResourceGroupProcessMode, now: string): Promise<ResourceGroupRecord | undefined> {
    const row = await this.db.updateTable('ci_resource_groups').set({ process_mode: mode, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirst();
    return row && toResourceGroup(row);
  }

  async currentJob(group: Pick<ResourceGroupRecord, 'project_id' | 'key'>): Promise<JobRecord | undefined> {
    const row = await this.db
      .selectFrom('ci_jobs')
      .select(JOB_SELECT)
      .where('project_id', '=', group.project_id)
      .where('resource_group', '=', group.key)
      .where('status', 'in', RESOURCE_HOLDING_STATUSES)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    return row && toJob(row, this.secrets);
  }

  async upcomingJobs(group: Pick<ResourceGroupRecord, 'project_id' | 'key' | 'process_mode'>, page: Page): Promise<{ items: JobRecord[]; total: number }> {
    const counted = await upcomingQuery(this.db, group).select(countAll().as('total')).executeTakeFirstOrThrow();
    const rows = await orderedUpcoming(this.db, group, JOB_SELECT).offset(page.offset).limit(page.limit).execute();
    return { items: rows.map((row) => toJob(row, this.secrets)), total: Number(counted.total) };
  }
}

/** The process mode of the project's group `key` (`unordered` for a key without a record). */
export async function processModeOf(db: Db, projectId: number, key: string): Promise<ResourceGroupProcessMode> {
  const row = await db.selectFrom('ci_resource_groups').select('process_mode').where('project_id', '=', projectId).where('key', '=', key).executeTakeFirst();
  return row && isResourceGroupProcessMode(row.process_mode) ? row.process_mode : 'unordered';
}

function upcomingQuery(db: Db, group: Pick<ResourceGroupRecord, 'project_id' | 'key' | 'process_mode'>) {
  return db
    .selectFrom('ci_jobs')
    .where('project_id', '=', group.project_id)
    .where('resource_group', '=', group.key)
    .where('status', 'in', [...upcomingStatuses(group.process_mode)]);
}

/** The group's upcoming jobs in the order its mode gives them the resource, with these columns. */
export function orderedUpcoming<C extends (typeof JOB_SELECT)[number]>(db: Db, group: Pick<ResourceGroupRecord, 'project_id' | 'key' | 'process_mode'>, columns: readonly C[]) {
  const order = pipelineOrder(group.process_mode);
  const query = upcomingQuery(db, group).select(columns);
  if (order === 'none') return query.orderBy('id');
  return query
    .orderBy('pipeline_id', order)
    .orderBy(sql`CASE WHEN status = 'waiting_for_resource' THEN 0 ELSE 1 END`)
    .orderBy('id');
}
