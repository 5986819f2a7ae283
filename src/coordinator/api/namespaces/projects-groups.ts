import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import type { NamespaceRecord } from '../../../storage/types.ts';
import { invalidParam } from '../../../shared/errors.ts';
import { avatarUrl } from '../../http/serializers/avatar-url.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { groupWebUrl } from '../../http/serializers/namespaces/groups.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { ProjectId } from './projects-schemas.ts';

const Query = Type.Object({
  search: Type.Optional(Param.string({ description: 'Part of the name or path' })),
  skip_groups: Type.Optional(Param.integers({ description: 'Leave out these group ids' })),
  with_shared: Type.Optional(Param.boolean({ description: 'Also the groups the project is shared with (default false)' })),
  shared_min_access_level: Type.Optional(Param.integer({ description: 'Only shares granting at least this level: 10, 20, 30, 40 or 50' })),
  shared_visible_only: Type.Optional(Param.boolean({ description: 'Only shared groups the caller can see (default false)' })),
  ...PAGINATION,
});

const ACCESS_LEVELS: readonly number[] = [10, 20, 30, 40, 50];

/** GitLab's PublicGroupDetails. */
function serializePublicGroup(group: NamespaceRecord, externalUrl: string) {
  return {
    id: group.id,
    name: group.name,
    avatar_url: avatarUrl(group.avatar_url, externalUrl),
    web_url: groupWebUrl(group, externalUrl),
    full_name: group.full_name,
    full_path: group.full_path,
  };
}

/** `GET /projects/:id/groups`: the project's ancestor groups and, with `with_shared`, the groups it is shared with. */
export function projectGroupsRoutes({ projectGroups }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const schema = { summary: "List a project's ancestor groups and the groups it is shared with", tags: ['projects'], params: ProjectId, querystring: Query };
    api.get('/projects/:id/groups', { schema }, async (request, reply) => {
      const { query } = request;
      if (query.shared_min_access_level !== undefined && !ACCESS_LEVELS.includes(query.shared_min_access_level)) {
        throw invalidParam('shared_min_access_level', 'does not have a valid value');
      }
      const groups = await projectGroups.list(request.params.id, request.actor, {
        search: query.search || undefined,
        skipGroups: query.skip_groups,
        withShared: query.with_shared ?? false,
        sharedMinAccessLevel: query.shared_min_access_level,
        sharedVisibleOnly: query.shared_visible_only ?? false,
      });
      const page = pageOf(query);
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total: groups.length });
      return groups.slice(page.offset, page.offset + page.perPage).map((group) => serializePublicGroup(group, edge.externalUrl));
    });
  };
}
