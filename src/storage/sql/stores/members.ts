import type { Db } from '../database.ts';
import type { TableWrites } from '../table-writes.ts';
import type { AccessLevel, MemberRecord, MemberSourceType, MembersStore } from '../../types.ts';

/** The database holds only the source types and access levels the store was given. */
export const toMember = (row: object) => row as MemberRecord;

export class SqlMembersStore implements MembersStore {
  constructor(
    private readonly db: Db,
    private readonly writes: TableWrites,
  ) {}

  async add(member: Omit<MemberRecord, 'id'>): Promise<MemberRecord> {
    this.writes.report({ table: 'members' });
    return toMember(await this.db.insertInto('members').values(member).returningAll().executeTakeFirstOrThrow());
  }

  async find(sourceType: MemberSourceType, sourceId: number, userId: number): Promise<MemberRecord | undefined> {
    const row = await this.db
      .selectFrom('members')
      .selectAll()
      .where('source_type', '=', sourceType)
      .where('source_id', '=', sourceId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row && toMember(row);
  }

  async listForSource(sourceType: MemberSourceType, sourceId: number): Promise<MemberRecord[]> {
    const rows = await this.db
      .selectFrom('members')
      .selectAll()
      .where('source_type', '=', sourceType)
      .where('source_id', '=', sourceId)
      .orderBy('id')
      .execute();
    return rows.map(toMember);
  }

  async listForUser(userId: number, sourceType: MemberSourceType, sourceIds?: readonly number[]): Promise<MemberRecord[]> {
    if (sourceIds !== undefined && sourceIds.length === 0) return [];
    let query = this.db.selectFrom('members').selectAll().where('user_id', '=', userId).where('source_type', '=', sourceType);
    if (sourceIds !== undefined) query = query.where('source_id', 'in', [...new Set(sourceIds)]);
    return (await query.execute()).map(toMember);
  }

  async update(id: number, changes: { access_level?: AccessLevel; expires_at?: string | null }): Promise<MemberRecord | undefined> {
    this.writes.report({ table: 'members' });
    const row = await this.db
      .updateTable('members')
      .set({ ...changes, updated_at: new Date().toISOString() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row && toMember(row);
  }

  async remove(sourceType: MemberSourceType, sourceId: number, userId: number): Promise<boolean> {
    this.writes.report({ table: 'members' });
    const result = await this.db
      .deleteFrom('members')
      .where('source_type', '=', sourceType)
      .where('source_id', '=', sourceId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async removeAllForSource(sourceType: MemberSourceType, sourceId: number): Promise<void> {
    this.writes.report({ table: 'members' });
    await this.db.deleteFrom('members').where('source_type', '=', sourceType).where('source_id', '=', sourceId).execute();
  }

  async removeExpired(today: string): Promise<number> {
    this.writes.report({ table: 'members' });
    const result = await this.db
      .deleteFrom('members')
      .where('expires_at', 'is not', null)
      .where('expires_at', '<=', today)
      // A group never loses an owner to expiry (GitLab keeps them too).
      .where((eb) => eb.or([eb('source_type', '=', 'project'), eb('access_level', '<', 50)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
