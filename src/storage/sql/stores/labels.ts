import { countAll, inTransaction, type Db } from '../database.ts';
import type { Page } from '../../types-ci.ts';
import type { LabelChanges, LabelRecord, LabelsStore, NewLabel } from '../../types-planning.ts';
import { containsInsensitive } from './like.ts';

type Owners = { projectIds: readonly number[]; groupIds: readonly number[] };

export class SqlLabelsStore implements LabelsStore {
  constructor(private readonly db: Db) {}

  async create(label: NewLabel): Promise<LabelRecord> {
    return this.db.insertInto('labels').values(label).returningAll().executeTakeFirstOrThrow();
  }

  async findById(id: number): Promise<LabelRecord | undefined> {
    return this.db.selectFrom('labels').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async list(owners: Owners, search: string | undefined, page: Page): Promise<{ items: LabelRecord[]; total: number }> {
    let query = this.owned(owners);
    if (!query) return { items: [], total: 0 };
    if (search) query = query.where(containsInsensitive(this.db, 'title', search));
    const counted = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const items = await query.selectAll().orderBy('title').orderBy('id').offset(page.offset).limit(page.limit).execute();
    return { items, total: Number(counted.total) };
  }

  async findByTitles(owners: Owners, titles: readonly string[]): Promise<LabelRecord[]> {
    const query = this.owned(owners);
    if (!query || titles.length === 0) return [];
    return query.selectAll().where('title', 'in', [...new Set(titles)]).orderBy('title').orderBy('id').execute();
  }

  async findOrCreateInProject(projectId: number, titles: readonly string[], color: string, now: string): Promise<LabelRecord[]> {
    const unique = [...new Set(titles)];
    if (unique.length === 0) return [];
    return inTransaction(this.db, async (trx) => {
      await trx
        .insertInto('labels')
        .values(unique.map((title) => ({ project_id: projectId, group_id: null, title, color, description: null, priority: null, created_at: now, updated_at: now })))
        .onConflict((conflict) => conflict.doNothing())
        .execute();
      return trx.selectFrom('labels').selectAll().where('project_id', '=', projectId).where('title', 'in', unique).execute();
    });
  }

  async update(id: number, changes: LabelChanges): Promise<LabelRecord | undefined> {
    const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    if (Object.keys(set).length === 0) return this.findById(id);
    return this.db.updateTable('labels').set(set).where('id', '=', id).returningAll().executeTakeFirst();
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('labels').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  private owned(owners: Owners) {
    const projectIds = [...new Set(owners.projectIds)];
    const groupIds = [...new Set(owners.groupIds)];
    if (projectIds.length + groupIds.length === 0) return undefined;
    return this.db.selectFrom('labels').where((eb) =>
      eb.or([...(projectIds.length ? [eb('project_id', 'in', projectIds)] : []), ...(groupIds.length ? [eb('group_id', 'in', groupIds)] : [])]),
    );
  }
}
