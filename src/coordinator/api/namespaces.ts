import type { FastifyPluginAsync } from 'fastify';
import type { CoordinatorContext } from '../context.ts';
import { requireActor } from '../http/auth.ts';
import { pageRequest, setPaginationHeaders } from '../http/pagination.ts';
import { paramsOf } from '../http/request-params.ts';
import { NamespacesService } from '../services/namespaces.ts';

/** `/namespaces`: list, get (id or URL-encoded full path) and the path-availability check. */
export function namespacesRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const namespaces = new NamespacesService(context);
  return async (api) => {
    api.get('/namespaces', async (request, reply) => {
      const actor = requireActor(request);
      const params = paramsOf(request);
      const page = pageRequest(params);
      const query = { search: params.string('search') || undefined, ownedOnly: params.bool('owned_only') ?? false };
      const { items, total } = await namespaces.list(actor, query, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, context.config.externalUrl, page, { total });
      return items;
    });

    api.get<{ Params: { id: string } }>('/namespaces/:id', async (request) => {
      return namespaces.get(request.params.id, requireActor(request));
    });

    api.get<{ Params: { id: string } }>('/namespaces/:id/exists', async (request) => {
      requireActor(request);
      const parentId = paramsOf(request).int('parent_id', { min: 1 });
      return namespaces.exists(request.params.id, parentId);
    });
  };
}
