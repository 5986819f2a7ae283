import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeGroupListItem } from '../../http/serializers/namespaces/groups.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { GroupId, GroupListParams, groupListQuery } from './groups.ts';

const tags = ['groups'];

/** `GET /groups/:id/descendant_groups`: every visible group below the group, with the subgroups list's filters. */
export function groupDescendantsRoutes({ groups }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const schema = { summary: "List a group's descendant groups", tags, params: GroupId, querystring: GroupListParams };
    api.get('/groups/:id/descendant_groups', { schema }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await groups.descendants(request.params.id, request.actor, groupListQuery(request.query), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((item) => serializeGroupListItem(item, edge.externalUrl));
    });
  };
}
