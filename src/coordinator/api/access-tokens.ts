import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { CoordinatorContext } from '../context.ts';
import { requireActor, requireAdmin } from '../http/auth.ts';
import { pageRequest, slicePage, setPaginationHeaders } from '../http/pagination.ts';
import { paramsOf } from '../http/request-params.ts';
import { AccessTokensService } from '../services/access-tokens.ts';

type UserPath = { Params: { user_id: string } };
type UserTokenPath = { Params: { user_id: string; token_id: string } };

function tokenId(request: FastifyRequest, name: string): number {
  return paramsOf(request).requiredInt(name, { min: 1 });
}

/** `/users/:user_id/impersonation_tokens`, `/users/:user_id/personal_access_tokens`, `/personal_access_tokens`. */
export function accessTokensRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const tokens = new AccessTokensService(context);
  const externalUrl = context.config.externalUrl;
  return async (api) => {
    api.get<UserPath>('/users/:user_id/impersonation_tokens', async (request, reply) => {
      requireAdmin(request);
      const params = paramsOf(request);
      const page = pageRequest(params);
      const all = await tokens.listImpersonation(request.params.user_id, params);
      setPaginationHeaders(request, reply, externalUrl, page, { total: all.length });
      return slicePage(all, page);
    });

    api.get<UserTokenPath>('/users/:user_id/impersonation_tokens/:token_id', async (request) => {
      requireAdmin(request);
      return tokens.getImpersonation(request.params.user_id, tokenId(request, 'token_id'));
    });

    api.post<UserPath>('/users/:user_id/impersonation_tokens', async (request, reply) => {
      requireAdmin(request);
      reply.code(201);
      return tokens.create(request.params.user_id, paramsOf(request), true);
    });

    api.delete<UserTokenPath>('/users/:user_id/impersonation_tokens/:token_id', async (request, reply) => {
      requireAdmin(request);
      await tokens.revokeImpersonation(request.params.user_id, tokenId(request, 'token_id'));
      return reply.code(204).send();
    });

    api.post<UserPath>('/users/:user_id/personal_access_tokens', async (request, reply) => {
      requireAdmin(request);
      reply.code(201);
      return tokens.create(request.params.user_id, paramsOf(request), false);
    });

    api.get('/personal_access_tokens', async (request, reply) => {
      const actor = requireActor(request);
      const params = paramsOf(request);
      const page = pageRequest(params);
      const all = await tokens.listPersonal(actor, params);
      setPaginationHeaders(request, reply, externalUrl, page, { total: all.length });
      return slicePage(all, page);
    });

    api.delete<{ Params: { id: string } }>('/personal_access_tokens/:id', async (request, reply) => {
      await tokens.revokePersonal(requireActor(request), tokenId(request, 'id'));
      return reply.code(204).send();
    });
  };
}
