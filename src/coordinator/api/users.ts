import type { FastifyPluginAsync } from 'fastify';
import type { CoordinatorContext } from '../context.ts';
import { requireActor, requireAdmin } from '../http/auth.ts';
import { messageAnswers } from '../http/error-responses.ts';
import { pageRequest, setPaginationHeaders } from '../http/pagination.ts';
import { paramsOf } from '../http/request-params.ts';
import { serializeUserBasic } from '../http/serializers/user-basic.ts';
import { serializeUserAdmin, serializeUserPublic } from '../http/serializers/users.ts';
import { UsersService } from '../services/users.ts';

interface UserPath {
  id: string;
}

/** `/users`, `/users/:id[/block|/unblock]` and `/user`. */
export function usersRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const users = new UsersService(context);
  const externalUrl = context.config.externalUrl;
  return async (api) => {
    api.get('/users', async (request, reply) => {
      const params = paramsOf(request);
      const page = pageRequest(params);
      const { items, total } = await users.list(request.actor, params, page);
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      const isAdmin = request.actor?.is_admin === true;
      return items.map((user) => (isAdmin ? serializeUserAdmin(user, externalUrl) : serializeUserBasic(user, externalUrl)));
    });

    api.get<{ Params: UserPath }>('/users/:id', async (request) => {
      await users.ensureReadable(request.actor);
      const user = await users.find(request.params.id);
      return request.actor?.is_admin ? serializeUserAdmin(user, externalUrl) : serializeUserPublic(user, externalUrl);
    });

    api.post('/users', async (request, reply) => {
      requireAdmin(request);
      const user = await users.create(paramsOf(request));
      return reply.code(201).send(serializeUserAdmin(user, externalUrl));
    });

    api.put<{ Params: UserPath }>('/users/:id', { config: { errorAnswers: messageAnswers(404, ['GANTRY_E_ALREADY_EXISTS']) } }, async (request) => {
      requireAdmin(request);
      const user = await users.update(request.params.id, paramsOf(request));
      return serializeUserAdmin(user, externalUrl);
    });

    api.delete<{ Params: UserPath }>('/users/:id', async (request, reply) => {
      requireAdmin(request);
      await users.remove(request.params.id, paramsOf(request).bool('hard_delete') === true);
      return reply.code(204).send();
    });

    api.post<{ Params: UserPath }>('/users/:id/block', async (request, reply) => {
      requireAdmin(request);
      return reply.code(201).send(await users.block(request.params.id));
    });

    api.post<{ Params: UserPath }>('/users/:id/unblock', async (request, reply) => {
      requireAdmin(request);
      return reply.code(201).send(await users.unblock(request.params.id));
    });

    api.get('/user', async (request) => serializeUserAdmin(requireActor(request), externalUrl));
  };
}
