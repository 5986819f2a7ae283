import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeTrigger } from '../../http/serializers/ci/settings.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const PROJECT_ID = { id: Param.string({ description: 'Project id or URL-encoded full path' }) };
const ProjectPath = Type.Object(PROJECT_ID);
const TriggerPath = Type.Object({ ...PROJECT_ID, trigger_id: Param.integer({ description: 'The trigger id' }) });
const PageQuery = Type.Object(PAGINATION);
const CreateBody = Type.Object({ description: Param.string({ minLength: 1, description: 'What the trigger is for' }) });
const UpdateBody = Type.Object({ description: Type.Optional(Param.string({ description: 'What the trigger is for' })) });

const tags = ['pipeline triggers'];

/**
 * `/projects/:id/triggers[/:trigger_id]` and `.../take_ownership`: Maintainers manage trigger
 * tokens. The full token shows to the trigger's owner only; others see its first 4 characters.
 */
export function ciTriggersRoutes({ triggers }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/triggers';

    api.get(base, { schema: { summary: "List a project's pipeline triggers", tags, params: ProjectPath, querystring: PageQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await triggers.list(request.params.id, requireActor(request), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((view) => serializeTrigger(view, edge.externalUrl));
    });

    api.get(`${base}/:trigger_id`, { schema: { summary: 'Get a pipeline trigger', tags, params: TriggerPath } }, async (request) => {
      const { id, trigger_id: triggerId } = request.params;
      return serializeTrigger(await triggers.get(id, requireActor(request), triggerId), edge.externalUrl);
    });

    api.post(base, { schema: { summary: 'Create a pipeline trigger (the caller owns it)', tags, params: ProjectPath, body: CreateBody } }, async (request, reply) => {
      const view = await triggers.create(request.params.id, requireActor(request), request.body.description);
      return reply.code(201).send(serializeTrigger(view, edge.externalUrl));
    });

    api.put(`${base}/:trigger_id`, { schema: { summary: "Update a pipeline trigger's description", tags, params: TriggerPath, body: UpdateBody } }, async (request) => {
      const { id, trigger_id: triggerId } = request.params;
      return serializeTrigger(await triggers.update(id, requireActor(request), triggerId, { description: request.body.description }), edge.externalUrl);
    });

    api.post(`${base}/:trigger_id/take_ownership`, { schema: { summary: 'Become the owner of a pipeline trigger', tags, params: TriggerPath } }, async (request, reply) => {
      const { id, trigger_id: triggerId } = request.params;
      return reply.code(200).send(serializeTrigger(await triggers.takeOwnership(id, requireActor(request), triggerId), edge.externalUrl));
    });

    api.delete(`${base}/:trigger_id`, { schema: { summary: 'Delete a pipeline trigger', tags, params: TriggerPath } }, async (request, reply) => {
      const { id, trigger_id: triggerId } = request.params;
      await triggers.remove(id, requireActor(request), triggerId);
      return reply.code(204).send();
    });
  };
}
