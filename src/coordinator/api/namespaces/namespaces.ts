import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeNamespaceView } from '../../http/serializers/namespaces/namespaces.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const NamespaceId = Type.Object({ id: Param.string({ description: 'Namespace id or URL-encoded full path' }) });

const ListQuery = Type.Object({
  search: Type.Optional(Param.string({ description: 'Part of the name or path' })),
  owned_only: Type.Optional(Param.boolean({ description: 'Only namespaces the caller owns' })),
  ...PAGINATION,
});

const ExistsQuery = Type.Object({ parent_id: Type.Optional(Param.integer({ minimum: 1, description: 'Look under this group' })) });

const tags = ['namespaces'];

/** `/namespaces`: list, get (id or URL-encoded full path) and the path-availability check. */
export function namespacesRoutes({ namespaces }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/namespaces', { schema: { summary: 'List the namespaces the caller can create projects in', tags, querystring: ListQuery } }, async (request, reply) => {
      const actor = requireActor(request);
      const page = pageOf(request.query);
      const query = { search: request.query.search || undefined, ownedOnly: request.query.owned_only ?? false };
      const { items, total } = await namespaces.list(actor, query, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((view) => serializeNamespaceView(view, edge.externalUrl));
    });

    api.get('/namespaces/:id', { schema: { summary: 'Get a namespace', tags, params: NamespaceId } }, async (request) => {
      return serializeNamespaceView(await namespaces.get(request.params.id, requireActor(request)), edge.externalUrl);
    });

    api.get('/namespaces/:id/exists', { schema: { summary: 'Whether a namespace path is taken', tags, params: NamespaceId, querystring: ExistsQuery } }, async (request) => {
      requireActor(request);
      return namespaces.exists(request.params.id, request.query.parent_id);
    });
  };
}
