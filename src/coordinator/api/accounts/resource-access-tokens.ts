import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { invalidParam, missingParam } from '../../../shared/errors.ts';
import { ACCESS_LEVELS } from '../../../storage/types.ts';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders, slicePage } from '../../http/pagination.ts';
import { serializeResourceAccessToken } from '../../http/serializers/accounts/access-tokens.ts';
import { RESOURCE_TOKEN_SCOPES, type TokenSourceKind } from '../../services/accounts/resource-access-tokens.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const SOURCES: ReadonlyArray<[prefix: 'projects' | 'groups', kind: TokenSourceKind]> = [
  ['projects', 'project'],
  ['groups', 'group'],
];

const SourcePath = Type.Object({ id: Param.string({ description: 'ID or URL-encoded path of the project or group' }) });
const TokenPath = Type.Object({ id: SourcePath.properties.id, token_id: Param.integer({ minimum: 1, description: 'The token' }) });

const ListQuery = Type.Object({
  state: Type.Optional(Param.oneOf(['active', 'inactive'], { description: 'Only working (active) or revoked and expired (inactive) tokens' })),
  ...PAGINATION,
});

const CreateBody = Type.Object({
  name: Param.string({ description: 'A name for the token (and its bot user)' }),
  scopes: Type.Array(Param.oneOf(RESOURCE_TOKEN_SCOPES), { description: 'What the token may do: at least one scope' }),
  access_level: Type.Optional(Param.integer({ description: "The bot's role: 10, 20, 30, 40 (the default) or 50" })),
  expires_at: Type.Optional(Param.date({ description: 'The token stops working on this day; default a year from today' })),
});

const RotateBody = Type.Object({
  expires_at: Type.Optional(Param.date({ description: 'The new token stops working on this day; default a week from today' })),
});

const tags = ['access_tokens'];

/** `/{projects|groups}/:id/access_tokens[/:token_id[/rotate]]`: tokens of the project's or group's bot users. */
export function resourceAccessTokensRoutes({ resourceAccessTokens: tokens }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const { externalUrl } = edge;
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    for (const [prefix, kind] of SOURCES) {
      const base = `/${prefix}/:id/access_tokens`;

      api.get(base, { schema: { summary: `List the ${kind}'s access tokens`, tags, params: SourcePath, querystring: ListQuery } }, async (request, reply) => {
        const page = pageOf(request.query);
        const all = await tokens.list(requireActor(request), kind, request.params.id, request.query.state);
        setPaginationHeaders(request, reply, externalUrl, page, { total: all.length });
        return slicePage(all, page).map(serializeResourceAccessToken);
      });

      api.get(`${base}/:token_id`, { schema: { summary: `Get a ${kind} access token`, tags, params: TokenPath } }, async (request) => {
        return serializeResourceAccessToken(await tokens.get(requireActor(request), kind, request.params.id, request.params.token_id));
      });

      api.post(base, { schema: { summary: `Create a ${kind} access token and its bot user`, tags, params: SourcePath, body: CreateBody } }, async (request, reply) => {
        const { body } = request;
        if (body.name.trim() === '') throw invalidParam('name', 'is empty');
        if (body.scopes.length === 0) throw missingParam('scopes');
        const accessLevel = ACCESS_LEVELS.find((level) => level === (body.access_level ?? 40));
        if (accessLevel === undefined) throw invalidParam('access_level', 'does not have a valid value');
        const input = { name: body.name, scopes: body.scopes, accessLevel, expiresAt: body.expires_at };
        const created = await tokens.create(requireActor(request), kind, request.params.id, input);
        return reply.code(201).send(serializeResourceAccessToken(created));
      });

      api.delete(`${base}/:token_id`, { schema: { summary: `Revoke a ${kind} access token`, tags, params: TokenPath } }, async (request, reply) => {
        await tokens.revoke(requireActor(request), kind, request.params.id, request.params.token_id);
        return reply.code(204).send();
      });

      const rotateSchema = { summary: `Rotate a ${kind} access token: a new token, the old one revoked`, tags, params: TokenPath, body: RotateBody };
      api.post(`${base}/:token_id/rotate`, { schema: rotateSchema }, async (request) => {
        const rotated = await tokens.rotate(requireActor(request), kind, request.params.id, request.params.token_id, request.body?.expires_at);
        return serializeResourceAccessToken(rotated);
      });
    }
  };
}
