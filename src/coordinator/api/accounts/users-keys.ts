import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeSshKey } from '../../http/serializers/accounts/users.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { UserId } from './users.ts';

export const KeyId = Type.Object({ key_id: Param.integer({ description: 'The key' }) });
export const UserKeyId = Type.Object({ id: UserId.properties.id, key_id: KeyId.properties.key_id });
export const ListQuery = Type.Object({ ...PAGINATION });

const AddBody = Type.Object({
  key: Param.string({ minLength: 1, description: 'The public key (OpenSSH format)' }),
  title: Param.string({ minLength: 1, description: 'A name for the key' }),
  expires_at: Type.Optional(Param.dateTime({ description: 'The key stops working then (ISO 8601)' })),
});

const tags = ['users'];

/** SSH keys of users (`/user/keys`, `/users/:id/keys`; one key of any user readable by the caller). */
export function usersKeysRoutes({ sshKeys }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/user/keys', { schema: { summary: "List the caller's SSH keys", tags, querystring: ListQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await sshKeys.list({ kind: 'self', actor: requireActor(request) }, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map(serializeSshKey);
    });

    api.get('/user/keys/:key_id', { schema: { summary: "Get one of the caller's SSH keys", tags, params: KeyId } }, async (request) => {
      return serializeSshKey(await sshKeys.get({ kind: 'self', actor: requireActor(request) }, request.params.key_id));
    });

    api.post('/user/keys', { schema: { summary: 'Add an SSH key for the caller', tags, body: AddBody } }, async (request, reply) => {
      const { key, title, expires_at: expiresAt } = request.body;
      return reply.code(201).send(serializeSshKey(await sshKeys.add({ kind: 'self', actor: requireActor(request) }, { key, title, expiresAt })));
    });

    api.delete('/user/keys/:key_id', { schema: { summary: "Remove one of the caller's SSH keys", tags, params: KeyId } }, async (request, reply) => {
      await sshKeys.remove({ kind: 'self', actor: requireActor(request) }, request.params.key_id);
      return reply.code(204).send();
    });

    api.get('/users/:id/keys', { schema: { summary: "List a user's SSH keys (administrators)", tags, params: UserId, querystring: ListQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const owner = { kind: 'administer', actor: requireActor(request), ref: request.params.id } as const;
      const { items, total } = await sshKeys.list(owner, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map(serializeSshKey);
    });

    api.get('/users/:id/keys/:key_id', { schema: { summary: "One of a user's SSH keys", tags, params: UserKeyId } }, async (request) => {
      return serializeSshKey(await sshKeys.get({ kind: 'read', actor: request.actor, ref: request.params.id }, request.params.key_id));
    });

    api.post('/users/:id/keys', { schema: { summary: 'Add an SSH key for a user (administrators)', tags, params: UserId, body: AddBody } }, async (request, reply) => {
      const { key, title, expires_at: expiresAt } = request.body;
      const owner = { kind: 'administer', actor: requireActor(request), ref: request.params.id } as const;
      return reply.code(201).send(serializeSshKey(await sshKeys.add(owner, { key, title, expiresAt })));
    });

    api.delete('/users/:id/keys/:key_id', { schema: { summary: "Remove a user's SSH key (administrators)", tags, params: UserKeyId } }, async (request, reply) => {
      await sshKeys.remove({ kind: 'administer', actor: requireActor(request), ref: request.params.id }, request.params.key_id);
      return reply.code(204).send();
    });
  };
}
