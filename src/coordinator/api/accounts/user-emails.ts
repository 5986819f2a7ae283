import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeUserEmail } from '../../http/serializers/accounts/user-emails.ts';
import type { EmailOwner } from '../../services/accounts/user-emails.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { UserId } from './users.ts';

const EmailId = Type.Object({ email_id: Param.integer({ description: 'The e-mail address' }) });
const UserEmailId = Type.Object({ id: UserId.properties.id, email_id: EmailId.properties.email_id });
const UserProvider = Type.Object({ id: UserId.properties.id, provider: Param.string({ description: 'The external provider' }) });
const ListQuery = Type.Object({ ...PAGINATION });
const AddBody = Type.Object({ email: Param.string({ minLength: 1, description: 'The address' }) });
const AdminAddBody = Type.Object({
  email: Param.string({ minLength: 1, description: 'The address' }),
  skip_confirmation: Type.Optional(Param.boolean({ description: 'Confirm the address at once' })),
});

const tags = ['users'];

/** Secondary e-mail addresses (`/user/emails`, `/users/:id/emails`) and `DELETE /users/:id/identities/:provider`. */
export function userEmailsRoutes({ userEmails, userIdentities }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const administer = (actor: EmailOwner['actor'], ref: string): EmailOwner => ({ kind: 'administer', actor, ref });

    api.get('/user/emails', { schema: { summary: "List the caller's secondary e-mail addresses", tags, querystring: ListQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await userEmails.list({ kind: 'self', actor: requireActor(request) }, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map(serializeUserEmail);
    });

    api.get('/user/emails/:email_id', { schema: { summary: "One of the caller's secondary e-mail addresses", tags, params: EmailId } }, async (request) => {
      return serializeUserEmail(await userEmails.get({ kind: 'self', actor: requireActor(request) }, request.params.email_id));
    });

    api.post('/user/emails', { schema: { summary: 'Add a secondary e-mail address for the caller (unconfirmed)', tags, body: AddBody } }, async (request, reply) => {
      return reply.code(201).send(serializeUserEmail(await userEmails.add({ kind: 'self', actor: requireActor(request) }, request.body.email, false)));
    });

    api.delete('/user/emails/:email_id', { schema: { summary: "Remove one of the caller's secondary e-mail addresses", tags, params: EmailId } }, async (request, reply) => {
      await userEmails.remove({ kind: 'self', actor: requireActor(request) }, request.params.email_id);
      return reply.code(204).send();
    });

    api.get('/users/:id/emails', { schema: { summary: "List a user's secondary e-mail addresses (administrators)", tags, params: UserId, querystring: ListQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await userEmails.list(administer(requireActor(request), request.params.id), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map(serializeUserEmail);
    });

    api.post('/users/:id/emails', { schema: { summary: 'Add a secondary e-mail address for a user (administrators)', tags, params: UserId, body: AdminAddBody } }, async (request, reply) => {
      const owner = administer(requireActor(request), request.params.id);
      return reply.code(201).send(serializeUserEmail(await userEmails.add(owner, request.body.email, request.body.skip_confirmation === true)));
    });

    api.delete('/users/:id/emails/:email_id', { schema: { summary: "Remove a user's secondary e-mail address (administrators)", tags, params: UserEmailId } }, async (request, reply) => {
      await userEmails.remove(administer(requireActor(request), request.params.id), request.params.email_id);
      return reply.code(204).send();
    });

    api.delete('/users/:id/identities/:provider', { schema: { summary: "Remove a user's external identity (administrators)", tags, params: UserProvider } }, async (request, reply) => {
      await userIdentities.remove(requireActor(request), request.params.id, request.params.provider);
      return reply.code(204).send();
    });
  };
}
