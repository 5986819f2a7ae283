import type { AccessLevel } from '../../types.ts';
import type { ProjectGroupLinkRecord, ProjectGroupLinksStore } from '../../types-projects.ts';
import type { Db } from '../database.ts';
import type { TableWrites } from '../table-writes.ts';

const toLink = (row: Omit<ProjectGroupLinkRecord, 'group_access'> & { group_access: number }): ProjectGroupLinkRecord => ({
  ...row,
  group_access: row.group_access as AccessLevel,
});

export class SqlProjectGroupLinksStore implements ProjectGroupLinksStore {
  constructor(
    private readonly db: Db,
    private readonly writes: TableWrites,
  ) {}

  async find(projectId: number, groupId: number): Promise<ProjectGroupLinkRecord | undefined> {
    const row = await this.db
      .selectFrom('project_group_links')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('group_id', '=', groupId)
      .executeTakeFirst();
    return row && toLink(row);
  }

  async add(link: Omit<ProjectGroupLinkRecord, 'id'>): Promise<ProjectGroupLinkRecord | undefined> {
    this.writes.report({ table: 'project_group_links' });
    const row = await this.db
      .insertInto('project_group_links')
      .values(link)
      .onConflict((conflict) => conflict.columns(['project_id', 'group_id']).doNothing())
      .returningAll()
      .executeTakeFirst();
    return row && toLink(row);
  }

  async removeExpired(today: string): Promise<number> {
    this.writes.report({ table: 'project_group_links' });
    const result = await this.db.deleteFrom('project_group_links').where('expires_at', 'is not', null).where('expires_at', '<=', today).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async remove(projectId: number, groupId: number): Promise<boolean> {
    this.writes.report({ table: 'project_group_links' });
    const result = await this.db
      .deleteFrom('project_group_links')
      .where('project_id', '=', projectId)
      .where('group_id', '=', groupId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
