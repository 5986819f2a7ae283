import { sql } from '#deps/kysely';
import { countAll, inTransaction, type Db } from '../database.ts';
import type { Page } from '../../types-ci.ts';
import type { MilestoneChanges, MilestoneIssueCounts, MilestoneListFilter, MilestoneRecord, MilestonesStore, MilestoneState, MilestoneTitleScope, NewMilestone } from '../../types-planning.ts';
import { fuzzyMatch } from './like.ts';
import { nextInternalId } from './internal-ids.ts';

/** Milestone#min_chars_for_partial_matching: a search word of two characters or more matches inside a title or description. */
const MIN_SEARCH_CHARS = 2;

const toMilestone = (row: Omit<MilestoneRecord, 'state'> & { state: string }): MilestoneRecord => ({ ...row, state: row.state as MilestoneState });

/** A group's next number for `usage`, as nextInternalId does for projects. */
async function nextGroupInternalId(db: Db, groupId: number, usage: 'milestones'): Promise<number> {
  const row = await db
    .insertInto('group_internal_ids')
    .values({ group_id: groupId, usage, last_value: 1 })
    .onConflict((conflict) => conflict.columns(['group_id', 'usage']).doUpdateSet({ last_value: sql<number>`group_internal_ids.last_value + 1` }))
    .returning('last_value')
    .executeTakeFirstOrThrow();
  return Number(row.last_value);
}

export class SqlMilestonesStore implements MilestonesStore {
  constructor(private readonly db: Db) {}

  async create(milestone: NewMilestone): Promise<MilestoneRecord> {
    return inTransaction(this.db, async (trx) => {
      const iid = milestone.project_id !== null ? await nextInternalId(trx, milestone.project_id, 'milestones') : await nextGroupInternalId(trx, milestone.group_id ?? 0, 'milestones');
      return toMilestone(await trx.insertInto('milestones').values({ ...milestone, iid }).returningAll().executeTakeFirstOrThrow());
    });
  }

  async findById(id: number): Promise<MilestoneRecord | undefined> {
    const row = await this.db.selectFrom('milestones').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toMilestone(row);
  }

  async findByIds(ids: readonly number[]): Promise<MilestoneRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.selectFrom('milestones').selectAll().where('id', 'in', [...new Set(ids)]).execute();
    return rows.map(toMilestone);
  }

  async list(owners: { projectIds: readonly number[]; groupIds: readonly number[] }, filter: MilestoneListFilter, page: Page): Promise<{ items: MilestoneRecord[]; total: number }> {
    const projectIds = [...new Set(owners.projectIds)];
    const groupIds = [...new Set(owners.groupIds)];
    if (projectIds.length + groupIds.length === 0) return { items: [], total: 0 };
    if (filter.iids !== undefined && filter.iids.length === 0) return { items: [], total: 0 };
    let query = this.db
      .selectFrom('milestones')
      .where((eb) => eb.or([...(projectIds.length ? [eb('project_id', 'in', projectIds)] : []), ...(groupIds.length ? [eb('group_id', 'in', groupIds)] : [])]));
    if (filter.iids !== undefined) query = query.where('iid', 'in', [...new Set(filter.iids)]);
    if (filter.state !== undefined) query = query.where('state', '=', filter.state);
    if (filter.title !== undefined) query = query.where('title', '=', filter.title);
    const search = filter.search === undefined ? undefined : fuzzyMatch(this.db, ['title', 'description'], filter.search, MIN_SEARCH_CHARS);
    if (search) query = query.where(search);
    if (filter.updatedBefore !== undefined) query = query.where('updated_at', '<=', filter.updatedBefore);
    if (filter.updatedAfter !== undefined) query = query.where('updated_at', '>=', filter.updatedAfter);
    const counted = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const rows = await query
      .selectAll()
      .orderBy(sql`case when due_date is null then 1 else 0 end`)
      .orderBy('due_date', 'asc')
      .orderBy('id', 'desc')
      .offset(page.offset)
      .limit(page.limit)
      .execute();
    return { items: rows.map(toMilestone), total: Number(counted.total) };
  }

  async findByTitles(owners: { projectIds: readonly number[]; groupIds: readonly number[] }, titles: readonly string[]): Promise<MilestoneRecord[]> {
    const projectIds = [...new Set(owners.projectIds)];
    const groupIds = [...new Set(owners.groupIds)];
    if (titles.length === 0 || projectIds.length + groupIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('milestones')
      .selectAll()
      .where('title', 'in', [...new Set(titles)])
      .where((eb) => eb.or([...(projectIds.length ? [eb('project_id', 'in', projectIds)] : []), ...(groupIds.length ? [eb('group_id', 'in', groupIds)] : [])]))
      .orderBy('id')
      .execute();
    return rows.map(toMilestone);
  }

  async issueCounts(ids: readonly number[]): Promise<Map<number, MilestoneIssueCounts>> {
    const counts = new Map<number, MilestoneIssueCounts>();
    if (ids.length === 0) return counts;
    const rows = await this.db
      .selectFrom('issues')
      .select(['milestone_id', countAll().as('total'), sql<number>`sum(case when state = 'closed' then 1 else 0 end)`.as('closed')])
      .where('milestone_id', 'in', [...new Set(ids)])
      .groupBy('milestone_id')
      .execute();
    for (const row of rows) if (row.milestone_id !== null) counts.set(row.milestone_id, { total: Number(row.total), closed: Number(row.closed) });
    return counts;
  }

  async titleTaken(scope: MilestoneTitleScope, title: string): Promise<boolean> {
    const projectIds = [...new Set(scope.projectIds)];
    const groupIds = [...new Set(scope.groupIds)];
    const namespaceIds = [...new Set(scope.projectNamespaceIds)];
    if (projectIds.length + groupIds.length + namespaceIds.length === 0) return false;
    const row = await this.db
      .selectFrom('milestones')
      .select('id')
      .where('title', '=', title)
      .where((eb) =>
        eb.or([
          ...(projectIds.length ? [eb('project_id', 'in', projectIds)] : []),
          ...(groupIds.length ? [eb('group_id', 'in', groupIds)] : []),
          ...(namespaceIds.length ? [eb('project_id', 'in', eb.selectFrom('projects').select('id').where('namespace_id', 'in', namespaceIds))] : []),
        ]),
      )
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async update(id: number, changes: MilestoneChanges): Promise<MilestoneRecord | undefined> {
    const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    if (Object.keys(set).length === 0) return this.findById(id);
    const row = await this.db.updateTable('milestones').set(set).where('id', '=', id).returningAll().executeTakeFirst();
    return row && toMilestone(row);
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('milestones').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
