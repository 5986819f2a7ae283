import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeMembership } from '../../http/serializers/namespaces/members.ts';
import { serializeUserBasic } from '../../http/serializers/user-basic.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const ProjectId = Type.Object({ id: Param.string({ description: 'Project id or URL-encoded full path' }) });
const UserId = Type.Object({ id: Param.string({ description: 'User id or username' }) });

const ProjectUsersQuery = Type.Object({
  search: Type.Optional(Param.string({ description: 'Part of the name or username' })),
  skip_users: Type.Optional(Param.integers({ description: 'Leave out these users' })),
  ...PAGINATION,
});

const MembershipsQuery = Type.Object({
  type: Type.Optional(Param.oneOf(['Project', 'Namespace'], { description: 'Only memberships of projects or of groups' })),
  ...PAGINATION,
});

/** `GET /projects/:id/users` and `GET /users/:id/memberships` (administrators). */
export function membershipsRoutes({ memberships }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    const projectUsersSchema = { summary: 'List the users with access to a project through membership', tags: ['projects'], params: ProjectId, querystring: ProjectUsersQuery };
    api.get('/projects/:id/users', { schema: projectUsersSchema }, async (request, reply) => {
      const page = pageOf(request.query);
      const query = { search: request.query.search || undefined, skipUsers: request.query.skip_users };
      const { items, total } = await memberships.projectUsers(request.params.id, request.actor, query, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((user) => serializeUserBasic(user, edge.externalUrl));
    });

    const membershipsSchema = { summary: "List a user's direct memberships (administrators)", tags: ['users'], params: UserId, querystring: MembershipsQuery };
    api.get('/users/:id/memberships', { schema: membershipsSchema }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await memberships.userMemberships(requireActor(request), request.params.id, request.query.type, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map(serializeMembership);
    });
  };
}
