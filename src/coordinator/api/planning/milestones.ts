import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { invalidParams } from '../../../shared/errors.ts';
import { requireActor } from '../../http/auth.ts';
import type { ErrorAnswer } from '../../http/error-responses.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeMilestone } from '../../http/serializers/planning/milestones.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { requireAtLeastOneOf } from '../at-least-one.ts';

const tags = ['milestones'];

const ListQuery = Type.Object({
  iids: Type.Optional(Param.integers({ description: 'Only the milestones of these iids' })),
  state: Type.Optional(Param.oneOf(['active', 'closed', 'all'], { description: 'Only active or closed milestones (default all)' })),
  title: Type.Optional(Param.string({ description: 'Only the milestone of this title' })),
  search: Type.Optional(Param.string({ description: 'Only milestones whose title or description contains every word of this (of two characters or more)' })),
  include_ancestors: Type.Optional(Param.boolean({ description: 'Include the milestones of the groups above (default false; iids is then ignored)' })),
  include_parent_milestones: Type.Optional(Param.boolean({ description: 'Deprecated: include_ancestors' })),
  updated_before: Type.Optional(Param.dateTime({ description: 'Updated at or before' })),
  updated_after: Type.Optional(Param.dateTime({ description: 'Updated at or after' })),
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
const UPDATES = ['title', 'description', 'start_date', 'due_date', 'state_event'] as const;

/** GitLab's render_api_error! of a milestone that fails validation: `Failed to create milestone {:title=>["..."]}`. */
function failedTo(action: 'create' | 'update'): ErrorAnswer {
  return {
    status: 400,
    body: (error) => {
      const fields = Object.entries(error.details.fields ?? {}).map(([field, reasons]) => `:${field}=>[${reasons.map((reason) => JSON.stringify(reason)).join(', ')}]`);
      return { message: `Failed to ${action} milestone {${fields.join(', ')}}` };
    },
  };
}

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
        if (query.include_ancestors !== undefined && query.include_parent_milestones !== undefined) {
          throw invalidParams([{ name: 'include_ancestors, include_parent_milestones', problem: 'are mutually exclusive' }]);
        }
        const page = pageOf(query);
        const filter = {
          iids: query.iids,
          state: query.state === 'all' ? undefined : query.state,
          title: query.title,
          search: query.search,
          updatedBefore: query.updated_before,
          updatedAfter: query.updated_after,
          includeParents: (query.include_ancestors ?? query.include_parent_milestones) === true,
        };
        const { items, total } = await milestones.list(owner(request.params.id), request.actor, filter, { offset: page.offset, limit: page.perPage });
        setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
        return items.map((view) => serializeMilestone(view, edge.externalUrl));
      });

      api.get(one, { schema: { summary: 'Get a milestone', tags, params: MilestonePath } }, async (request) => {
        return serializeMilestone(await milestones.get(owner(request.params.id), request.actor, request.params.milestone_id), edge.externalUrl);
      });

      const createConfig = { errorAnswers: { GANTRY_E_VALIDATION_FAILED: failedTo('create') } };
      api.post(base, { schema: { summary: 'Create a milestone', tags, params: OwnerPath, body: CreateBody }, config: createConfig }, async (request, reply) => {
        const { body } = request;
        const input = { title: body.title, description: body.description, dueDate: body.due_date, startDate: body.start_date };
        return reply.code(201).send(serializeMilestone(await milestones.create(owner(request.params.id), requireActor(request), input), edge.externalUrl));
      });

      const updateConfig = { errorAnswers: { GANTRY_E_VALIDATION_FAILED: failedTo('update') } };
      api.put(one, { schema: { summary: 'Update, close or reopen a milestone', tags, params: MilestonePath, body: UpdateBody }, config: updateConfig }, async (request) => {
        const { body } = request;
        requireAtLeastOneOf(body, UPDATES);
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
