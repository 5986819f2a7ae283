import type { AccessLevel } from '../../types.ts';
import type { GroupGroupLinkRecord, GroupGroupLinksStore } from '../../types-projects.ts';
import type { Db } from '../database.ts';
import type { TableWrites } from '../table-writes.ts';
import { preparedQuery } from '../prepared.ts';
import type { GroupGroupLinksTable } from '../schema.ts';

type LinkRow = Omit<GroupGroupLinksTable, 'id'> & { id: number };

const toLink = (row: LinkRow): GroupGroupLinkRecord => ({ ...row, group_access: row.group_access as AccessLevel });

export class SqlGroupGroupLinksStore implements GroupGroupLinksStore {
  /** Links of one shared group (every read of a project in a top-level group asks), prepared once. */
  private readonly ofSharedGroup;

  constructor(
    private readonly db: Db,
    private readonly writes: TableWrites,
  ) {
    this.ofSharedGroup = preparedQuery(db, (id: number) => db.selectFrom('group_group_links').selectAll().where('shared_group_id', '=', id).orderBy('id').compile());
  }

  async add(link: Omit<GroupGroupLinkRecord, 'id'>): Promise<GroupGroupLinkRecord | undefined> {
    this.writes.report({ table: 'group_group_links' });
    const row = await this.db
      .insertInto('group_group_links')
      .values(link)
      .onConflict((conflict) => conflict.columns(['shared_group_id', 'shared_with_group_id']).doNothing())
      .returningAll()
      .executeTakeFirst();
    return row && toLink(row);
  }

  async remove(sharedGroupId: number, sharedWithGroupId: number): Promise<boolean> {
    this.writes.report({ table: 'group_group_links' });
    const result = await this.db
      .deleteFrom('group_group_links')
      .where('shared_group_id', '=', sharedGroupId)
      .where('shared_with_group_id', '=', sharedWithGroupId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async listForSharedGroups(groupIds: readonly number[]): Promise<GroupGroupLinkRecord[]> {
    const ids = [...new Set(groupIds)];
    if (ids.length === 0) return [];
    const rows = ids.length === 1 ? await this.ofSharedGroup(ids[0]!) : await this.db.selectFrom('group_group_links').selectAll().where('shared_group_id', 'in', ids).orderBy('id').execute();
    return rows.map(toLink);
  }

  async listForInvitedGroups(groupIds: readonly number[]): Promise<GroupGroupLinkRecord[]> {
    if (groupIds.length === 0) return [];
    const rows = await this.db.selectFrom('group_group_links').selectAll().where('shared_with_group_id', 'in', [...new Set(groupIds)]).orderBy('id').execute();
    return rows.map(toLink);
  }

  async removeExpired(today: string): Promise<number> {
    this.writes.report({ table: 'group_group_links' });
    const result = await this.db.deleteFrom('group_group_links').where('expires_at', 'is not', null).where('expires_at', '<=', today).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
