import { sql } from '#deps/kysely';
import { countAll, type Db } from '../database.ts';
import type {
  AccessLevel,
  GroupListFilter,
  GroupProjectFilter,
  GroupQueriesStore,
  NamespaceRecord,
  ProjectRecord,
} from '../../types.ts';
import { containsInsensitive } from './like.ts';
import { toNamespace } from './namespaces.ts';
import { carriesTopic } from './project-queries.ts';
import { toProject } from './projects.ts';

export class SqlGroupQueriesStore implements GroupQueriesStore {
  constructor(private readonly db: Db) {}

  async listGroups(filter: GroupListFilter, page: { offset: number; limit: number }): Promise<{ items: NamespaceRecord[]; total: number }> {
    if (filter.onlyIds !== undefined && filter.onlyIds.length === 0) return { items: [], total: 0 };
    let query = this.db.selectFrom('namespaces').where('kind', '=', 'group');
    const scope = filter.scope;
    if (scope) {
      if (scope.visibilities.length === 0 && scope.ids.length === 0) return { items: [], total: 0 };
      query = query.where((eb) => {
        const alternatives = [];
        if (scope.visibilities.length > 0) alternatives.push(eb('visibility', 'in', scope.visibilities));
        if (scope.ids.length > 0) alternatives.push(eb('id', 'in', [...new Set(scope.ids)]));
        return eb.or(alternatives);
      });
    }
    if (filter.parentId !== undefined) query = query.where('parent_id', '=', filter.parentId);
    if (filter.onlyIds !== undefined) query = query.where('id', 'in', [...new Set(filter.onlyIds)]);
    if (filter.skipIds !== undefined && filter.skipIds.length > 0) query = query.where('id', 'not in', [...new Set(filter.skipIds)]);
    if (filter.search) {
      const search = filter.search;
      query = query.where((eb) => eb.or([containsInsensitive(this.db, 'name', search), containsInsensitive(this.db, 'path', search)]));
    }

    const counted = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const column = filter.orderBy === 'path' ? 'path' : 'name';
    const rows = await query
      .selectAll()
      .orderBy(sql`lower(${sql.ref(column)})`, filter.sort)
      .orderBy('id', filter.sort)
      .offset(page.offset)
      .limit(page.limit)
      .execute();
    return { items: rows.map(toNamespace), total: Number(counted.total) };
  }

  async listGroupProjects(filter: GroupProjectFilter): Promise<ProjectRecord[]> {
    let query = this.db.selectFrom('projects').selectAll().where('pending_delete', '=', 0);
    const shared = this.db.selectFrom('project_group_links').select('project_id').where('group_id', '=', filter.groupId);
    const own = filter.namespaceIds ?? [filter.groupId];
    if (filter.include === 'owned') query = query.where('namespace_id', 'in', own);
    else if (filter.include === 'shared') query = query.where('id', 'in', shared);
    else query = query.where((eb) => eb.or([eb('namespace_id', 'in', own), eb('id', 'in', shared)]));

    if (filter.archived !== undefined) query = query.where('archived', '=', filter.archived ? 1 : 0);
    if (filter.visibility !== undefined) query = query.where('visibility', '=', filter.visibility);
    if (filter.issuesEnabled) query = query.where('issues_enabled', '=', 1);
    if (filter.mergeRequestsEnabled) query = query.where('merge_requests_enabled', '=', 1);
    for (const topic of filter.topics ?? []) query = query.where(carriesTopic(this.db, topic));
    if (filter.search) {
      const search = filter.search;
      query = query.where((eb) => eb.or([containsInsensitive(this.db, 'name', search), containsInsensitive(this.db, 'path', search)]));
    }
    if (filter.starredBy !== undefined) {
      const starred = this.db.selectFrom('stars').select('project_id').where('user_id', '=', filter.starredBy);
      query = query.where('id', 'in', starred);
    }
    const ordered =
      filter.orderBy === 'name' || filter.orderBy === 'path'
        ? query.orderBy(sql`lower(${sql.ref(filter.orderBy)})`, filter.sort)
        : query.orderBy(filter.orderBy, filter.sort);
    const rows = await ordered.orderBy('id', filter.sort).execute();
    return rows.map(toProject);
  }

  async groupIdsWithMemberLevel(userId: number, level: AccessLevel): Promise<number[]> {
    const rows = await this.db
      .selectFrom('members')
      .select('source_id')
      .where('user_id', '=', userId)
      .where('source_type', '=', 'namespace')
      .where('access_level', '>=', level)
      .execute();
    return rows.map((row) => row.source_id);
  }
}
