import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeMilestone } from '../../http/serializers/planning/milestones.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const tags = ['milestones'];

const ListQuery = Type.Object({
  iids: Type.Optional(Param.integers({ description: 'Only the milestones of these iids' })),
  state: Type.Optional(Param.oneOf(['active', 'closed'], { description: 'Only active or closed milestones' })),
  title: Type.Optional(Param.string({ description: 'Only the milestone of this title' })),
  search: Type.Optional(Param.string({ description: 'Only milestones whose title or description contains this' })),
  include_parent_milestones: Type.Optional(Param.boolean({ description: "Include the milestones of the groups above (default false)" })),
  ...PAGINATION,
});
const FIELDS = {
  description: Type.Optional(Param.nullable(Param.string({ description: 'The description' }))),
  due_date: Type.Optional(Param.nullable(Param.date({ description: 'YYYY-MM-DD' }))),
  start_date: Type.Optional(Param.nullable(Param.date({ description: 'YYYY-MM-DD' }))),
};
const CreateBody = Type.Object({ title: Param.string({ minLength: 1, description: 'The title, unique in the project or group' }), ...FIELDS });
const UpdateBody = Type.Object({
  title: Type.Optional(Param.string({ description: 'The new title' })),
  ...FIELDS,
  state_event: Type.Optional(Param.oneOf(['close', 'activate'], { description: 'Close or reopen the milestone' })),
});

/** `/projects/:id/milestones` and `/groups/:id/milestones`: list, get, create, update (close, activate) and delete. */
export function milestonesRoutes({ milestones }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    for (const kind of ['project', 'group'] as const) {
      const base = kind === 'project' ? '/projects/:id/milestones' : '/groups/:id/milestones';
      const one = `${base}/:milestone_id`;
      const idParam = { id: Param.string({ description: `${kind === 'project' ? 'Project' : 'Group'} id or URL-encoded full path` }) };
      const OwnerPath = Type.Object(idParam);
      const MilestonePath = Type.Object({ ...idParam, milestone_id: Param.integer({ description: 'The milestone id' }) });
      const owner = (id: string) => ({ kind, ref: id });

      api.get(base, { schema: { summary: `List a ${kind}'s milestones`, tags, params: OwnerPath, querystring: ListQuery } }, async (request, reply) => {
        const { query } = request;
        const page = pageOf(query);
        const filter = { iids: query.iids, state: query.state, title: query.title, search: query.search, includeParents: query.include_parent_milestones === true };
        const { items, total } = await milestones.list(owner(request.params.id), request.actor, filter, { offset: page.offset, limit: page.perPage });
        setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
        return items.map((view) => serializeMilestone(view, edge.externalUrl));
      });

      api.get(one, { schema: { summary: 'Get a milestone', tags, params: MilestonePath } }, async (request) => {
        return serializeMilestone(await milestones.get(owner(request.params.id), request.actor, request.params.milestone_id), edge.externalUrl);
      });

      api.post(base, { schema: { summary: 'Create a milestone', tags, params: OwnerPath, body: CreateBody } }, async (request, reply) => {
        const { body } = request;
        const input = { title: body.title, description: body.description, dueDate: body.due_date, startDate: body.start_date };
        return reply.code(201).send(serializeMilestone(await milestones.create(owner(request.params.id), requireActor(request), input), edge.externalUrl));
      });

      api.put(one, { schema: { summary: 'Update, close or reopen a milestone', tags, params: MilestonePath, body: UpdateBody } }, async (request) => {
        const { body } = request;
        const input = { title: body.title, description: body.description, dueDate: body.due_date, startDate: body.start_date, stateEvent: body.state_event };
        const view = await milestones.update(owner(request.params.id), requireActor(request), request.params.milestone_id, input);
        return serializeMilestone(view, edge.externalUrl);
      });

      api.delete(one, { schema: { summary: 'Delete a milestone (its issues keep none)', tags, params: MilestonePath } }, async (request, reply) => {
        await milestones.remove(owner(request.params.id), requireActor(request), request.params.milestone_id);
        return reply.code(204).send();
      });
    }
  };
}
