import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { CoordinatorContext } from '../context.ts';
import { requireActor, requireAdmin } from '../http/auth.ts';
import { pageRequest, setPaginationHeaders } from '../http/pagination.ts';
import { paramsOf } from '../http/request-params.ts';
import { serializeSshKey } from '../http/serializers/users.ts';
import { SshKeysService } from '../services/users-keys.ts';
import { UsersService } from '../services/users.ts';

interface KeyPath {
  key_id: string;
}

interface UserKeyPath {
  id: string;
  key_id: string;
}

export function keyId(request: FastifyRequest): number {
  return paramsOf(request).requiredInt('key_id');
}

/** SSH keys of users (`/user/keys`, `/users/:id/keys`). */
export function usersKeysRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const sshKeys = new SshKeysService(context);
  const users = new UsersService(context);
  const externalUrl = context.config.externalUrl;
  return async (api) => {
    api.get('/user/keys', async (request, reply) => {
      const actor = requireActor(request);
      const page = pageRequest(paramsOf(request));
      const { items, total } = await sshKeys.list(actor.id, page);
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      return items.map(serializeSshKey);
    });

    api.get<{ Params: KeyPath }>('/user/keys/:key_id', async (request) => {
      const actor = requireActor(request);
      return serializeSshKey(await sshKeys.get(actor.id, keyId(request)));
    });

    api.post('/user/keys', async (request, reply) => {
      const actor = requireActor(request);
      return reply.code(201).send(serializeSshKey(await sshKeys.add(actor.id, paramsOf(request))));
    });

    api.delete<{ Params: KeyPath }>('/user/keys/:key_id', async (request, reply) => {
      const actor = requireActor(request);
      await sshKeys.remove(actor.id, keyId(request));
      return reply.code(204).send();
    });

    api.get<{ Params: { id: string } }>('/users/:id/keys', async (request, reply) => {
      requireAdmin(request);
      const user = await users.find(request.params.id);
      const page = pageRequest(paramsOf(request));
      const { items, total } = await sshKeys.list(user.id, page);
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      return items.map(serializeSshKey);
    });

    api.post<{ Params: { id: string } }>('/users/:id/keys', async (request, reply) => {
      requireAdmin(request);
      const user = await users.find(request.params.id);
      return reply.code(201).send(serializeSshKey(await sshKeys.add(user.id, paramsOf(request))));
    });

    api.delete<{ Params: UserKeyPath }>('/users/:id/keys/:key_id', async (request, reply) => {
      requireAdmin(request);
      const user = await users.find(request.params.id);
      await sshKeys.remove(user.id, keyId(request));
      return reply.code(204).send();
    });
  };
}
