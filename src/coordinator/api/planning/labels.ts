import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeLabel } from '../../http/serializers/planning/labels.ts';
import type { Actor } from '../../services/access/permissions.ts';
import type { LabelInput, LabelView } from '../../services/planning/labels.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { requireAtLeastOneOf } from '../at-least-one.ts';

const tags = ['labels'];
const CHANGES = ['new_name', 'color', 'description', 'priority'] as const;

const ListQuery = Type.Object({
  with_counts: Type.Optional(Param.boolean({ description: 'Add open_issues_count, closed_issues_count and open_merge_requests_count' })),
  include_ancestor_groups: Type.Optional(Param.boolean({ description: "Include the labels of the groups above (default true)" })),
  search: Type.Optional(Param.string({ description: 'Only labels whose name contains this' })),
  ...PAGINATION,
});
const FIELDS = {
  description: Type.Optional(Param.nullable(Param.string({ description: 'The description' }))),
  priority: Type.Optional(Param.nullable(Param.integer({ description: 'The priority: 0 or more (project labels); null removes it' }))),
};
const CreateBody = Type.Object({
  name: Param.string({ minLength: 1, description: 'The name: no commas, unique in the project or group' }),
  color: Param.string({ minLength: 1, description: "'#rrggbb', '#rgb' or a CSS colour name" }),
  ...FIELDS,
});
const UPDATE = {
  new_name: Type.Optional(Param.string({ description: 'The new name' })),
  color: Type.Optional(Param.string({ description: "'#rrggbb', '#rgb' or a CSS colour name" })),
  ...FIELDS,
};
const UpdateByNameBody = Type.Object({ name: Param.string({ minLength: 1, description: 'The name of the label to change' }), ...UPDATE });
const UpdateBody = Type.Object(UPDATE);
const DeleteByNameQuery = Type.Object({ name: Param.string({ minLength: 1, description: 'The name of the label to delete' }) });

function changes(body: { new_name?: string; color?: string; description?: string | null; priority?: number | null }): LabelInput {
  requireAtLeastOneOf(body, CHANGES);
  return { name: body.new_name, color: body.color, description: body.description, priority: body.priority };
}

/**
 * `/projects/:id/labels` and `/groups/:id/labels`: list, get (by id or name), create, update
 * and delete (by `name` as GitLab 10 did, or by `:label_id`, an id or a name).
 */
export function labelsRoutes({ labels, subscriptions }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    for (const kind of ['project', 'group'] as const) {
      const base = kind === 'project' ? '/projects/:id/labels' : '/groups/:id/labels';
      const one = `${base}/:label_id`;
      const idParam = { id: Param.string({ description: `${kind === 'project' ? 'Project' : 'Group'} id or URL-encoded full path` }) };
      const OwnerPath = Type.Object(idParam);
      const LabelPath = Type.Object({ ...idParam, label_id: Param.string({ description: 'The label id or name' }) });
      const forProject = kind === 'project';
      const owner = (id: string) => ({ kind, ref: id });
      const answer = async (view: LabelView, actor: Actor) => serializeLabel(view, forProject, (await subscriptions.labelsSubscribed([view.label.id], actor)).has(view.label.id));

      api.get(base, { schema: { summary: `List a ${kind}'s labels`, tags, params: OwnerPath, querystring: ListQuery } }, async (request, reply) => {
        const { query } = request;
        const page = pageOf(query);
        const options = { search: query.search, withCounts: query.with_counts === true, includeAncestorGroups: query.include_ancestor_groups !== false };
        const { items, total } = await labels.list(owner(request.params.id), request.actor, options, { offset: page.offset, limit: page.perPage });
        setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
        const subscribed = await subscriptions.labelsSubscribed(items.map((view) => view.label.id), request.actor);
        return items.map((view) => serializeLabel(view, forProject, subscribed.has(view.label.id)));
      });

      api.get(one, { schema: { summary: 'Get a label by id or name', tags, params: LabelPath } }, async (request) => {
        return answer(await labels.get(owner(request.params.id), request.actor, { ref: request.params.label_id }), request.actor);
      });

      api.post(base, { schema: { summary: 'Create a label', tags, params: OwnerPath, body: CreateBody } }, async (request, reply) => {
        const { body } = request;
        const input = { name: body.name, color: body.color, description: body.description, priority: forProject ? body.priority : undefined };
        return reply.code(201).send(serializeLabel(await labels.create(owner(request.params.id), requireActor(request), input), forProject));
      });

      api.put(base, { schema: { summary: 'Update a label named by `name`', tags, params: OwnerPath, body: UpdateByNameBody } }, async (request) => {
        const input = changes(request.body);
        const actor = requireActor(request);
        return answer(await labels.update(owner(request.params.id), actor, { name: request.body.name }, input), actor);
      });

      api.put(one, { schema: { summary: 'Update a label', tags, params: LabelPath, body: UpdateBody } }, async (request) => {
        const input = changes(request.body);
        const actor = requireActor(request);
        return answer(await labels.update(owner(request.params.id), actor, { ref: request.params.label_id }, input), actor);
      });

      api.delete(base, { schema: { summary: 'Delete a label named by `name`', tags, params: OwnerPath, querystring: DeleteByNameQuery } }, async (request, reply) => {
        await labels.remove(owner(request.params.id), requireActor(request), { name: request.query.name });
        return reply.code(204).send();
      });

      api.delete(one, { schema: { summary: 'Delete a label', tags, params: LabelPath } }, async (request, reply) => {
        await labels.remove(owner(request.params.id), requireActor(request), { ref: request.params.label_id });
        return reply.code(204).send();
      });
    }
  };
}
