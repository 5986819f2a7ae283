import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type, type Static } from '#deps/typebox';
import { invalidParam, missingParam } from '../../../shared/errors.ts';
import { TOKEN_SCOPES } from '../../../storage/types-tokens.ts';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders, slicePage } from '../../http/pagination.ts';
import { serializeAccessTokenView } from '../../http/serializers/accounts/access-tokens.ts';
import type { NewTokenInput } from '../../services/accounts/access-tokens.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const UserPath = Type.Object({ user_id: Param.string({ description: 'User id or username' }) });
const UserTokenPath = Type.Object({ user_id: UserPath.properties.user_id, token_id: Param.integer({ minimum: 1, description: 'The token' }) });
const TokenPath = Type.Object({ id: Param.integer({ minimum: 1, description: 'The token' }) });

const CreateBody = Type.Object({
  name: Param.string({ description: 'A name for the token' }),
  scopes: Type.Array(Param.oneOf(TOKEN_SCOPES), { description: 'What the token may do: at least one scope' }),
  expires_at: Type.Optional(Param.date({ description: 'The token stops working on this day' })),
});

const ImpersonationQuery = Type.Object({
  state: Type.Optional(Param.oneOf(['all', 'active', 'inactive'], { description: 'Default all' })),
  ...PAGINATION,
});

const PersonalQuery = Type.Object({
  user_id: Type.Optional(Param.integer({ minimum: 1, description: "Another user's tokens (administrators)" })),
  ...PAGINATION,
});

const tags = ['access_tokens'];

/** `/users/:user_id/impersonation_tokens`, `/users/:user_id/personal_access_tokens`, `/personal_access_tokens`. */
export function accessTokensRoutes({ accessTokens: tokens }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const { externalUrl } = edge;
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    const listSchema = { summary: "List a user's impersonation tokens (administrators)", tags, params: UserPath, querystring: ImpersonationQuery };
    api.get('/users/:user_id/impersonation_tokens', { schema: listSchema }, async (request, reply) => {
      const page = pageOf(request.query);
      const all = await tokens.listImpersonation(requireActor(request), request.params.user_id, request.query.state ?? 'all');
      setPaginationHeaders(request, reply, externalUrl, page, { total: all.length });
      return slicePage(all, page).map((token) => serializeAccessTokenView(token, { impersonation: true }));
    });

    api.get('/users/:user_id/impersonation_tokens/:token_id', { schema: { summary: 'Get an impersonation token (administrators)', tags, params: UserTokenPath } }, async (request) => {
      const token = await tokens.getImpersonation(requireActor(request), request.params.user_id, request.params.token_id);
      return serializeAccessTokenView(token, { impersonation: true });
    });

    api.post('/users/:user_id/impersonation_tokens', { schema: { summary: 'Issue an impersonation token (administrators)', tags, params: UserPath, body: CreateBody } }, async (request, reply) => {
      const token = await tokens.create(requireActor(request), request.params.user_id, newToken(request.body), true);
      return reply.code(201).send(serializeAccessTokenView(token, { impersonation: true }));
    });

    api.delete('/users/:user_id/impersonation_tokens/:token_id', { schema: { summary: 'Revoke an impersonation token (administrators)', tags, params: UserTokenPath } }, async (request, reply) => {
      await tokens.revokeImpersonation(requireActor(request), request.params.user_id, request.params.token_id);
      return reply.code(204).send();
    });

    api.post('/users/:user_id/personal_access_tokens', { schema: { summary: 'Issue a personal access token (administrators)', tags, params: UserPath, body: CreateBody } }, async (request, reply) => {
      const token = await tokens.create(requireActor(request), request.params.user_id, newToken(request.body), false);
      return reply.code(201).send(serializeAccessTokenView(token));
    });

    api.get('/personal_access_tokens', { schema: { summary: "List the caller's personal access tokens", tags, querystring: PersonalQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const all = await tokens.listPersonal(requireActor(request), request.query.user_id);
      setPaginationHeaders(request, reply, externalUrl, page, { total: all.length });
      return slicePage(all, page).map((token) => serializeAccessTokenView(token));
    });

    api.delete('/personal_access_tokens/:id', { schema: { summary: 'Revoke a personal access token', tags, params: TokenPath } }, async (request, reply) => {
      await tokens.revokePersonal(requireActor(request), request.params.id);
      return reply.code(204).send();
    });
  };
}

/** A blank name is refused as grape refuses an empty required value; `scopes` may not be empty. */
function newToken(body: Static<typeof CreateBody>): NewTokenInput {
  if (body.name.trim() === '') throw invalidParam('name', 'is empty');
  if (body.scopes.length === 0) throw missingParam('scopes');
  return { name: body.name, scopes: body.scopes, expiresAt: body.expires_at };
}
