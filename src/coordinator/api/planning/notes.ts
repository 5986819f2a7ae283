import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { missingParam } from '../../../shared/errors.ts';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeNote } from '../../http/serializers/planning/notes.ts';
import type { NoteableRef } from '../../services/planning/noteables.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const tags = ['notes'];
const PROJECT = { id: Param.string({ description: 'Project id or URL-encoded full path' }) };
const NOTE = { note_id: Param.integer({ description: 'The note id' }) };
const ISSUE = { ...PROJECT, issue_iid: Param.integer({ description: 'The issue iid' }) };
const MERGE_REQUEST = { ...PROJECT, merge_request_iid: Param.integer({ description: 'The merge request iid' }) };
const ListQuery = Type.Object({
  order_by: Type.Optional(Param.oneOf(['created_at', 'updated_at'], { description: 'created_at (default) or updated_at' })),
  sort: Type.Optional(Param.oneOf(['asc', 'desc'], { description: 'desc (default) or asc' })),
  ...PAGINATION,
});
// `body` is read as optional so that an absent one answers GitLab's `body is missing` and a blank one `body is empty`.
const CreateBody = Type.Object({
  body: Type.Optional(Param.string({ description: 'Markdown, at most 1,000,000 characters' })),
  internal: Type.Optional(Param.boolean({ description: 'Visible to Reporters and up only (Reporters and up may set it)' })),
  confidential: Type.Optional(Param.boolean({ description: 'Deprecated name of internal' })),
  created_at: Type.Optional(Param.dateTime({ description: 'Administrators and project Owners only' })),
});
const UpdateBody = Type.Object({
  body: Type.Optional(Param.string({ description: 'Markdown, at most 1,000,000 characters' })),
  confidential: Type.Optional(Param.boolean({ description: 'Ignored: a note keeps its visibility' })),
});

/** The issue or merge request a route's (validated) path names. */
export function noteableOf(params: object): NoteableRef {
  if ('merge_request_iid' in params && typeof params.merge_request_iid === 'number') return { type: 'MergeRequest', iid: params.merge_request_iid };
  if ('issue_iid' in params && typeof params.issue_iid === 'number') return { type: 'Issue', iid: params.issue_iid };
  throw new Error('A route below an issue or merge request without its iid');
}

/**
 * Notes on issues and merge requests: `/projects/:id/issues/:issue_iid/notes[/:note_id]` and
 * `/projects/:id/merge_requests/:merge_request_iid/notes[/:note_id]`, system notes included.
 * Every call needs a signed-in caller.
 */
export function notesRoutes({ notes }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    for (const onMergeRequest of [false, true]) {
      const base = onMergeRequest ? '/projects/:id/merge_requests/:merge_request_iid/notes' : '/projects/:id/issues/:issue_iid/notes';
      const what = onMergeRequest ? 'a merge request' : 'an issue';
      const TargetPath = Type.Object(onMergeRequest ? MERGE_REQUEST : ISSUE);
      const NotePath = Type.Object({ ...(onMergeRequest ? MERGE_REQUEST : ISSUE), ...NOTE });

      api.get(base, { schema: { summary: `List ${what}'s notes (system notes included)`, tags, params: TargetPath, querystring: ListQuery } }, async (request, reply) => {
        const actor = requireActor(request);
        const page = pageOf(request.query);
        const query = { orderBy: request.query.order_by ?? 'created_at', sort: request.query.sort ?? 'desc' } as const;
        const { items, total } = await notes.list(request.params.id, actor, noteableOf(request.params), query, { offset: page.offset, limit: page.perPage });
        setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
        return items.map((view) => serializeNote(view, edge.externalUrl));
      });

      api.get(`${base}/:note_id`, { schema: { summary: `Get a note of ${what}`, tags, params: NotePath } }, async (request) => {
        const { id, note_id } = request.params;
        return serializeNote(await notes.get(id, requireActor(request), noteableOf(request.params), note_id), edge.externalUrl);
      });

      api.post(base, { schema: { summary: `Comment on ${what}`, tags, params: TargetPath, body: CreateBody } }, async (request, reply) => {
        const actor = requireActor(request);
        const { body } = request;
        if (body.body === undefined) throw missingParam('body');
        const input = { body: body.body, internal: body.internal ?? body.confidential, createdAt: body.created_at };
        const view = await notes.create(request.params.id, actor, noteableOf(request.params), input);
        return reply.code(201).send(serializeNote(view, edge.externalUrl));
      });

      api.put(`${base}/:note_id`, { schema: { summary: `Edit a note of ${what}`, tags, params: NotePath, body: UpdateBody } }, async (request) => {
        const actor = requireActor(request);
        const { id, note_id } = request.params;
        if (request.body.body === undefined) throw missingParam('body');
        return serializeNote(await notes.update(id, actor, noteableOf(request.params), note_id, request.body.body), edge.externalUrl);
      });

      api.delete(`${base}/:note_id`, { schema: { summary: `Delete a note of ${what}`, tags, params: NotePath } }, async (request, reply) => {
        const { id, note_id } = request.params;
        await notes.remove(id, requireActor(request), noteableOf(request.params), note_id);
        return reply.code(204).send();
      });
    }
  };
}
