import type { FastifyPluginAsync } from 'fastify';
import type { CoordinatorContext } from '../context.ts';
import { requireAdmin } from '../http/auth.ts';
import { pageRequest, setPaginationHeaders, slicePage } from '../http/pagination.ts';
import { paramsOf } from '../http/request-params.ts';
import { MembershipsService } from '../services/memberships.ts';

/** `GET /projects/:id/users` and `GET /users/:id/memberships` (administrators). */
export function membershipsRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const memberships = new MembershipsService(context);
  const externalUrl = context.config.externalUrl;
  return async (api) => {
    api.get<{ Params: { id: string } }>('/projects/:id/users', async (request, reply) => {
      const params = paramsOf(request);
      const page = pageRequest(params);
      const query = { search: params.string('search') || undefined, skipUsers: params.intArray('skip_users') };
      const project = await context.lookup.readableProject(request.params.id, request.actor);
      const users = await memberships.projectUsers(project, query);
      setPaginationHeaders(request, reply, externalUrl, page, { total: users.length });
      return slicePage(users, page);
    });

    api.get<{ Params: { id: string } }>('/users/:id/memberships', async (request, reply) => {
      requireAdmin(request);
      const params = paramsOf(request);
      const page = pageRequest(params);
      const type = params.oneOf('type', ['Project', 'Namespace'] as const);
      const user = await context.lookup.user(request.params.id);
      const all = await memberships.userMemberships(user, type);
      setPaginationHeaders(request, reply, externalUrl, page, { total: all.length });
      return slicePage(all, page);
    });
  };
}
