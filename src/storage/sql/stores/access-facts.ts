import { sql } from '#deps/kysely';
import type { AccessLevel, MemberRecord, MemberSourceType, NamespaceRecord } from '../../types.ts';
import type { AccessFactsStore } from '../../types-access.ts';
import type { Db } from '../database.ts';
import { preparedQuery } from '../prepared.ts';
import { toMember } from './members.ts';
import { toNamespace } from './namespaces.ts';

/** Namespaces nest far less deep than this; the bound only guards against a corrupt cycle. */
const MAX_DEPTH = 64;

export class SqlAccessFactsStore implements AccessFactsStore {
  private readonly chainQuery;
  private readonly membershipsQuery;
  private readonly sharesQuery;
  private readonly memberProjectNamespacesQuery;

  constructor(private readonly db: Db) {
    this.chainQuery = preparedQuery(db, (id: number) =>
      sql<object>`with recursive chain(id, depth) as (
          select id, 0 from namespaces where id = ${id}
          union all
          select namespaces.parent_id, chain.depth + 1 from namespaces join chain on namespaces.id = chain.id
          where namespaces.parent_id is not null and chain.depth < ${sql.lit(MAX_DEPTH)}
        )
        select namespaces.* from chain join namespaces on namespaces.id = chain.id order by chain.depth`.compile(db),
    );
    this.membershipsQuery = preparedQuery(db, (userId: number) => db.selectFrom('members').selectAll().where('user_id', '=', userId).orderBy('id').compile());
    this.sharesQuery = preparedQuery(db, (projectId: number) =>
      db.selectFrom('project_group_links').select(['group_id', 'group_access']).where('project_id', '=', projectId).orderBy('id').compile(),
    );
    this.memberProjectNamespacesQuery = preparedQuery(db, (type: MemberSourceType, userId: number) =>
      db
        .selectFrom('projects')
        .innerJoin('members', 'members.source_id', 'projects.id')
        .select('projects.namespace_id')
        .distinct()
        .where('members.source_type', '=', type)
        .where('members.user_id', '=', userId)
        .compile(),
    );
  }

  async namespaceChain(namespaceId: number): Promise<NamespaceRecord[]> {
    return (await this.chainQuery(namespaceId)).map(toNamespace);
  }

  async membershipsOf(userId: number): Promise<MemberRecord[]> {
    return (await this.membershipsQuery(userId)).map(toMember);
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
