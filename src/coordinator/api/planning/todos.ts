import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeTodo } from '../../http/serializers/planning/todos.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const tags = ['todos'];
const ACTIONS = ['assigned', 'review_requested', 'mentioned', 'build_failed', 'marked', 'approval_required', 'unmergeable', 'directly_addressed'] as const;
const ListQuery = Type.Object({
  action: Type.Optional(Param.oneOf(ACTIONS, { description: 'Only todos of this action' })),
  author_id: Type.Optional(Param.integer({ description: 'Only todos this user caused' })),
  project_id: Type.Optional(Param.integer({ description: 'Only todos of this project' })),
  group_id: Type.Optional(Param.integer({ description: "Only todos of this group's projects (and its subgroups')" })),
  state: Type.Optional(Param.oneOf(['pending', 'done'], { description: 'pending (default) or done' })),
  type: Type.Optional(Param.oneOf(['Issue', 'MergeRequest'], { description: 'Issue or MergeRequest' })),
  ...PAGINATION,
});
const TodoPath = Type.Object({ id: Param.integer({ description: 'The todo id' }) });
const IssuePath = Type.Object({ id: Param.string({ description: 'Project id or URL-encoded full path' }), issue_iid: Param.integer({ description: 'The issue iid' }) });
const MergeRequestPath = Type.Object({ id: Param.string({ description: 'Project id or URL-encoded full path' }), merge_request_iid: Param.integer({ description: 'The merge request iid' }) });

/**
 * The caller's todos: `GET /todos`, `POST /todos/:id/mark_as_done` (201 with the todo),
 * `POST /todos/mark_as_done` (204), and `POST /projects/:id/{issues/:issue_iid,merge_requests/:merge_request_iid}/todo`
 * (201 with the new todo, 304 when the caller already has one pending there).
 */
export function todosRoutes({ todos }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/todos', { schema: { summary: "List the caller's todos, newest first", tags, querystring: ListQuery } }, async (request, reply) => {
      const actor = requireActor(request);
      const { query } = request;
      const page = pageOf(query);
      const filter = { action: query.action, authorId: query.author_id, projectId: query.project_id, groupId: query.group_id, state: query.state, type: query.type };
      const { items, total } = await todos.list(actor, filter, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((view) => serializeTodo(view, edge.externalUrl));
    });

    api.post('/todos/:id/mark_as_done', { schema: { summary: 'Mark one of your todos done', tags, params: TodoPath } }, async (request, reply) => {
      return reply.code(201).send(serializeTodo(await todos.markDone(requireActor(request), request.params.id), edge.externalUrl));
    });

    api.post('/todos/mark_as_done', { schema: { summary: 'Mark all your todos done', tags } }, async (request, reply) => {
      await todos.markAllDone(requireActor(request));
      return reply.code(204).send();
    });

    api.post('/projects/:id/issues/:issue_iid/todo', { schema: { summary: 'Add a todo for yourself on an issue', tags, params: IssuePath } }, async (request, reply) => {
      const view = await todos.markIssue(request.params.id, requireActor(request), request.params.issue_iid);
      if (!view) return reply.code(304).send();
      return reply.code(201).send(serializeTodo(view, edge.externalUrl));
    });

    api.post('/projects/:id/merge_requests/:merge_request_iid/todo', { schema: { summary: 'Add a todo for yourself on a merge request', tags, params: MergeRequestPath } }, async (request, reply) => {
      const view = await todos.markMergeRequest(request.params.id, requireActor(request), request.params.merge_request_iid);
      if (!view) return reply.code(304).send();
      return reply.code(201).send(serializeTodo(view, edge.externalUrl));
    });
  };
}
