import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { GroupId } from './groups.ts';
import { groupDetailsRenderer } from './groups-details.ts';

const TransferBody = Type.Object({
  group_id: Type.Optional(Param.integer({ minimum: 1, description: 'The new parent group; without it the group moves to the top level' })),
});

const tags = ['groups'];

/** `POST /groups/:id/transfer`: moves a group under another group or to the top level (Owner of both). */
export function groupTransferRoutes(services: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const renderDetails = groupDetailsRenderer(services, edge);
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const schema = { summary: 'Transfer a group to a new parent group or to the top level', tags, params: GroupId, body: TransferBody };
    api.post('/groups/:id/transfer', { schema }, async (request, reply) => {
      const actor = requireActor(request);
      const details = await services.groupTransfer.transfer(request.params.id, actor, request.body?.group_id);
      return reply.code(201).send(await renderDetails(details, actor));
    });
  };
}
