import { sql } from 'kysely';
import type { AccessLevel, MemberRecord, NamespaceRecord } from '../../types.ts';
import type { AccessFactsStore } from '../../types-access.ts';
import type { Db } from '../database.ts';
import { preparedQuery } from '../prepared.ts';
import { toNamespace } from './namespaces.ts';

/** Namespaces nest far less deep than this; the bound only guards against a corrupt cycle. */
const MAX_DEPTH = 64;

export class SqlAccessFactsStore implements AccessFactsStore {
  private readonly chainQuery;
  private readonly membershipsQuery;
  private readonly sharesQuery;
  private readonly memberProjectNamespacesQuery;

  constructor(private readonly db: Db) {
    this.chainQuery = preparedQuery<object>(db, 1, (id) =>
      sql<object>`with recursive chain(id, depth) as (
          select id, 0 from namespaces where id = ${id}
          union all
          select namespaces.parent_id, chain.depth + 1 from namespaces join chain on namespaces.id = chain.id
          where namespaces.parent_id is not null and chain.depth < ${sql.lit(MAX_DEPTH)}
        )
        select namespaces.* from chain join namespaces on namespaces.id = chain.id order by chain.depth`.compile(db),
    );
    this.membershipsQuery = preparedQuery<MemberRecord>(db, 1, (userId) => db.selectFrom('members').selectAll().where('user_id', '=', userId as never).orderBy('id').compile() as never);
    this.sharesQuery = preparedQuery<{ group_id: number; group_access: number }>(db, 1, (projectId) =>
      db.selectFrom('project_group_links').select(['group_id', 'group_access']).where('project_id', '=', projectId as never).orderBy('id').compile(),
    );
    this.memberProjectNamespacesQuery = preparedQuery<{ namespace_id: number }>(db, 2, (type, userId) =>
      db
        .selectFrom('projects')
        .innerJoin('members', 'members.source_id', 'projects.id')
        .select('projects.namespace_id')
        .distinct()
        .where('members.source_type', '=', type as never)
        .where('members.user_id', '=', userId as never)
        .compile(),
    );
  }

  async namespaceChain(namespaceId: number): Promise<NamespaceRecord[]> {
    return (await this.chainQuery(namespaceId)).map(toNamespace);
  }

  async membershipsOf(userId: number): Promise<MemberRecord[]> {
    return this.membershipsQuery(userId);
  }

  async projectShares(projectId: number): Promise<Array<{ group_id: number; group_access: AccessLevel }>> {
    return (await this.sharesQuery(projectId)).map((row) => ({ group_id: row.group_id, group_access: row.group_access as AccessLevel }));
  }

  async projectIdsIn(namespaceIds: readonly number[]): Promise<number[]> {
    if (namespaceIds.length === 0) return [];
    const rows = await this.db.selectFrom('projects').select('id').where('namespace_id', 'in', [...new Set(namespaceIds)]).execute();
    return rows.map((row) => row.id);
  }

  async namespacesOfMemberProjects(userId: number): Promise<number[]> {
    return (await this.memberProjectNamespacesQuery('project', userId)).map((row) => row.namespace_id);
  }
}
