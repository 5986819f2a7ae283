import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeGpgKey } from '../../http/serializers/accounts/users.ts';
import type { KeyOwner } from '../../services/accounts/users-keys.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { UserId } from './users.ts';
import { KeyId, ListQuery, UserKeyId } from './users-keys.ts';

const AddBody = Type.Object({ key: Param.string({ minLength: 1, description: 'The armored public key' }) });

const tags = ['users'];

/**
 * GPG keys of users: the caller's own (`/user/gpg_keys`), anyone's for reading (`/users/:id/gpg_keys`),
 * and administration of another user's keys. Revoking answers 202 like GitLab; with no signature
 * verification here it is a removal.
 */
export function usersGpgKeysRoutes({ gpgKeys }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const list = async (request: FastifyRequest, reply: FastifyReply, owner: KeyOwner, query: { page?: string; per_page?: string }) => {
    const page = pageOf(query);
    const { items, total } = await gpgKeys.list(owner, { offset: page.offset, limit: page.perPage });
    setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
    return items.map(serializeGpgKey);
  };
  const own = (request: FastifyRequest): KeyOwner => ({ kind: 'self', actor: requireActor(request) });
  const administered = (request: FastifyRequest, ref: string): KeyOwner => ({ kind: 'administer', actor: requireActor(request), ref });

  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/user/gpg_keys', { schema: { summary: "List the caller's GPG keys", tags, querystring: ListQuery } }, async (request, reply) =>
      list(request, reply, own(request), request.query),
    );

    api.get('/user/gpg_keys/:key_id', { schema: { summary: "Get one of the caller's GPG keys", tags, params: KeyId } }, async (request) => {
      return serializeGpgKey(await gpgKeys.get(own(request), request.params.key_id));
    });

    api.post('/user/gpg_keys', { schema: { summary: 'Add a GPG key for the caller', tags, body: AddBody } }, async (request, reply) => {
      return reply.code(201).send(serializeGpgKey(await gpgKeys.add(own(request), request.body.key)));
    });

    api.delete('/user/gpg_keys/:key_id', { schema: { summary: "Remove one of the caller's GPG keys", tags, params: KeyId } }, async (request, reply) => {
      await gpgKeys.remove(own(request), request.params.key_id);
      return reply.code(204).send();
    });

    api.post('/user/gpg_keys/:key_id/revoke', { schema: { summary: "Revoke one of the caller's GPG keys", tags, params: KeyId } }, async (request, reply) => {
      await gpgKeys.remove(own(request), request.params.key_id);
      return reply.code(202).send();
    });

    api.get('/users/:id/gpg_keys', { schema: { summary: "List a user's GPG keys", tags, params: UserId, querystring: ListQuery } }, async (request, reply) =>
      list(request, reply, { kind: 'read', actor: request.actor, ref: request.params.id }, request.query),
    );

    api.get('/users/:id/gpg_keys/:key_id', { schema: { summary: "Get a user's GPG key", tags, params: UserKeyId } }, async (request) => {
      return serializeGpgKey(await gpgKeys.get({ kind: 'read', actor: request.actor, ref: request.params.id }, request.params.key_id));
    });

    api.post('/users/:id/gpg_keys', { schema: { summary: 'Add a GPG key for a user (administrators)', tags, params: UserId, body: AddBody } }, async (request, reply) => {
      return reply.code(201).send(serializeGpgKey(await gpgKeys.add(administered(request, request.params.id), request.body.key)));
    });

    api.delete('/users/:id/gpg_keys/:key_id', { schema: { summary: "Remove a user's GPG key (administrators)", tags, params: UserKeyId } }, async (request, reply) => {
      await gpgKeys.remove(administered(request, request.params.id), request.params.key_id);
      return reply.code(204).send();
    });

    api.post('/users/:id/gpg_keys/:key_id/revoke', { schema: { summary: "Revoke a user's GPG key (administrators)", tags, params: UserKeyId } }, async (request, reply) => {
      await gpgKeys.remove(administered(request, request.params.id), request.params.key_id);
      return reply.code(202).send();
    });
  };
}
