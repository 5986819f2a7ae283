import { countAll, type Db } from '../database.ts';
import type { MemberListFilter, MemberQueriesStore, MemberRecord, MemberSourceType } from '../../types.ts';
import { containsInsensitive } from './like.ts';

export class SqlMemberQueriesStore implements MemberQueriesStore {
  constructor(private readonly db: Db) {}

  async list(
    sourceType: MemberSourceType,
    sourceId: number,
    filter: MemberListFilter,
    page: { offset: number; limit: number },
  ): Promise<{ items: MemberRecord[]; total: number }> {
    if (filter.userIds !== undefined && filter.userIds.length === 0) return { items: [], total: 0 };
    let query = this.db
      .selectFrom('members')
      .innerJoin('users', 'users.id', 'members.user_id')
      .where('members.source_type', '=', sourceType)
      .where('members.source_id', '=', sourceId);
    if (filter.userIds !== undefined) query = query.where('members.user_id', 'in', [...new Set(filter.userIds)]);
    if (filter.query) {
      const term = filter.query;
      query = query.where((eb) => eb.or([containsInsensitive(this.db, 'users.name', term), containsInsensitive(this.db, 'users.username', term)]));
    }
    const counted = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const rows = await query.selectAll('members').orderBy('members.id').offset(page.offset).limit(page.limit).execute();
    return { items: rows as MemberRecord[], total: Number(counted.total) };
  }

  async countOwners(sourceType: MemberSourceType, sourceIds: readonly number[], exceptMemberId: number): Promise<number> {
    if (sourceIds.length === 0) return 0;
    const row = await this.db
      .selectFrom('members')
      .select(countAll().as('total'))
      .where('source_type', '=', sourceType)
      .where('source_id', 'in', [...new Set(sourceIds)])
      .where('access_level', '>=', 50)
      .where('id', '!=', exceptMemberId)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }
}
