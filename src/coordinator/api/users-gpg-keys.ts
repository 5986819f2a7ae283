import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { UserRecord } from '../../storage/types.ts';
import type { CoordinatorContext } from '../context.ts';
import { requireActor, requireAdmin } from '../http/auth.ts';
import { pageRequest, setPaginationHeaders } from '../http/pagination.ts';
import { paramsOf } from '../http/request-params.ts';
import { serializeGpgKey } from '../http/serializers/users.ts';
import { GpgKeysService } from '../services/users-keys.ts';
import { UsersService } from '../services/users.ts';
import { keyId } from './users-keys.ts';

interface UserPath {
  id: string;
}

/**
 * GPG keys of users: the caller's own (`/user/gpg_keys`), anyone's for reading (`/users/:id/gpg_keys`),
 * and administration of another user's keys. Revoking answers 202 like GitLab; with no signature
 * verification here it is a removal.
 */
export function usersGpgKeysRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const gpgKeys = new GpgKeysService(context);
  const users = new UsersService(context);
  const externalUrl = context.config.externalUrl;

  const list = async (request: FastifyRequest, reply: FastifyReply, user: UserRecord) => {
    const page = pageRequest(paramsOf(request));
    const { items, total } = await gpgKeys.list(user.id, page);
    setPaginationHeaders(request, reply, externalUrl, page, { total });
    return items.map(serializeGpgKey);
  };

  const readableUser = async (request: FastifyRequest<{ Params: UserPath }>) => {
    await users.ensureReadable(request.actor);
    return users.find(request.params.id);
  };

  const administeredUser = (request: FastifyRequest<{ Params: UserPath }>) => {
    requireAdmin(request);
    return users.find(request.params.id);
  };

  return async (api) => {
    api.get('/user/gpg_keys', async (request, reply) => list(request, reply, requireActor(request)));

    api.get('/user/gpg_keys/:key_id', async (request) => {
      const actor = requireActor(request);
      return serializeGpgKey(await gpgKeys.get(actor.id, keyId(request)));
    });

    api.post('/user/gpg_keys', async (request, reply) => {
      const actor = requireActor(request);
      return reply.code(201).send(serializeGpgKey(await gpgKeys.add(actor.id, paramsOf(request))));
    });

    api.delete('/user/gpg_keys/:key_id', async (request, reply) => {
      const actor = requireActor(request);
      await gpgKeys.remove(actor.id, keyId(request));
      return reply.code(204).send();
    });

    api.post('/user/gpg_keys/:key_id/revoke', async (request, reply) => {
      const actor = requireActor(request);
      await gpgKeys.remove(actor.id, keyId(request));
      return reply.code(202).send();
    });

    api.get<{ Params: UserPath }>('/users/:id/gpg_keys', async (request, reply) =>
      list(request, reply, await readableUser(request)),
    );

    api.get<{ Params: UserPath }>('/users/:id/gpg_keys/:key_id', async (request) => {
      const user = await readableUser(request);
      return serializeGpgKey(await gpgKeys.get(user.id, keyId(request)));
    });

    api.post<{ Params: UserPath }>('/users/:id/gpg_keys', async (request, reply) => {
      const user = await administeredUser(request);
      return reply.code(201).send(serializeGpgKey(await gpgKeys.add(user.id, paramsOf(request))));
    });

    api.delete<{ Params: UserPath }>('/users/:id/gpg_keys/:key_id', async (request, reply) => {
      const user = await administeredUser(request);
      await gpgKeys.remove(user.id, keyId(request));
      return reply.code(204).send();
    });

    api.post<{ Params: UserPath }>('/users/:id/gpg_keys/:key_id/revoke', async (request, reply) => {
      const user = await administeredUser(request);
      await gpgKeys.remove(user.id, keyId(request));
      return reply.code(202).send();
    });
  };
}
