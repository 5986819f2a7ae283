import type { Db } from '../database.ts';
import type { TableWrites } from '../table-writes.ts';
import type { UserLifecycleStore } from '../../types-users.ts';

const OWNER = 50;

export class SqlUserLifecycleStore implements UserLifecycleStore {
  constructor(
    private readonly db: Db,
    private readonly writes: TableWrites,
  ) {}

  async personalProjectIds(userId: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('projects')
      .innerJoin('namespaces', 'namespaces.id', 'projects.namespace_id')
      .select('projects.id')
      .where('namespaces.kind', '=', 'user')
      .where('namespaces.owner_id', '=', userId)
      .execute();
    return rows.map((row) => row.id);
  }

  async reassignContributions(fromUserId: number, toUserId: number): Promise<void> {
    this.writes.report({ table: 'projects' });
    await this.db.updateTable('projects').set({ creator_id: toUserId }).where('creator_id', '=', fromUserId).execute();
    await this.db.updateTable('commit_comments').set({ author_id: toUserId }).where('author_id', '=', fromUserId).execute();
    this.writes.report({ table: 'members' });
    await this.db.updateTable('members').set({ created_by_id: toUserId }).where('created_by_id', '=', fromUserId).execute();
  }

  async solelyOwnedGroupIds(userId: number): Promise<number[]> {
    const owned = await this.db
      .selectFrom('members')
      .select('source_id')
      .where('source_type', '=', 'namespace')
      .where('user_id', '=', userId)
      .where('access_level', '=', OWNER)
      .execute();
    const sole: number[] = [];
    for (const { source_id: groupId } of owned) {
      const others = await this.db
        .selectFrom('members')
        .select('id')
        .where('source_type', '=', 'namespace')
        .where('source_id', '=', groupId)
        .where('access_level', '=', OWNER)
        .where('user_id', '!=', userId)
        .executeTakeFirst();
      if (!others) sole.push(groupId);
    }
    return sole;
  }
}
