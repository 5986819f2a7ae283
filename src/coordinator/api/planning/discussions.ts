import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { atLeastOneOf, invalidParams, missingParam } from '../../../shared/errors.ts';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeDiscussion, serializeNote } from '../../http/serializers/planning/notes.ts';
import type { DiffPositionInput } from '../../services/planning/discussions.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { noteableOf } from './notes.ts';

const tags = ['discussions'];
const PROJECT = { id: Param.string({ description: 'Project id or URL-encoded full path' }) };
const ISSUE = { ...PROJECT, issue_iid: Param.integer({ description: 'The issue iid' }) };
const MERGE_REQUEST = { ...PROJECT, merge_request_iid: Param.integer({ description: 'The merge request iid' }) };
const DISCUSSION = { discussion_id: Param.string({ description: 'The thread id (40 hexadecimal characters)', maxLength: 64 }) };
const NOTE = { note_id: Param.integer({ description: 'The note id' }) };
const Position = Type.Object({
  base_sha: Param.string({ description: "The request's diff_refs.base_sha", maxLength: 64 }),
  start_sha: Param.string({ description: "The request's diff_refs.start_sha", maxLength: 64 }),
  head_sha: Param.string({ description: "The request's diff_refs.head_sha", maxLength: 64 }),
  position_type: Param.oneOf(['text', 'image'], { description: 'text (image positions are refused)' }),
  new_path: Type.Optional(Param.string({ description: 'File path after the change', maxLength: 4096 })),
  old_path: Type.Optional(Param.string({ description: 'File path before the change', maxLength: 4096 })),
  new_line: Type.Optional(Param.integer({ description: 'Line number after the change' })),
  old_line: Type.Optional(Param.integer({ description: 'Line number before the change' })),
});
// `body` is read as optional so that an absent one answers GitLab's `body is missing` and a blank one `body is empty`.
const BODY = { body: Type.Optional(Param.string({ description: 'Markdown, at most 1,000,000 characters' })) };
const CREATED_AT = { created_at: Type.Optional(Param.dateTime({ description: 'Administrators and project Owners only' })) };
const NoteUpdate = Type.Object({ ...BODY, resolved: Type.Optional(Param.boolean({ description: 'Resolve or unresolve the note (merge requests)' })) });
const ResolveQuery = Type.Object({ resolved: Type.Optional(Param.boolean({ description: 'Resolve (true) or unresolve (false) the thread' })) });

/**
 * Threads on issues and merge requests: `/projects/:id/{issues/:issue_iid,merge_requests/:merge_request_iid}/discussions[/:discussion_id[/notes[/:note_id]]]`,
 * and on merge requests `PUT .../discussions/:discussion_id` to resolve a thread. Every call needs a signed-in caller.
 */
export function discussionsRoutes({ discussions, notes }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const { externalUrl } = edge;
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    for (const onMergeRequest of [false, true]) {
      const base = onMergeRequest ? '/projects/:id/merge_requests/:merge_request_iid/discussions' : '/projects/:id/issues/:issue_iid/discussions';
      const what = onMergeRequest ? 'a merge request' : 'an issue';
      const TARGET = onMergeRequest ? MERGE_REQUEST : ISSUE;
      const TargetPath = Type.Object(TARGET);
      const DiscussionPath = Type.Object({ ...TARGET, ...DISCUSSION });
      const NotePath = Type.Object({ ...TARGET, ...DISCUSSION, ...NOTE });
      const CreateBody = Type.Object({ ...BODY, ...CREATED_AT, ...(onMergeRequest ? { position: Type.Optional(Position) } : {}) });

      api.get(base, { schema: { summary: `List ${what}'s threads (every note is in one)`, tags, params: TargetPath, querystring: Type.Object(PAGINATION) } }, async (request, reply) => {
        const page = pageOf(request.query);
        const { items, total } = await discussions.list(request.params.id, requireActor(request), noteableOf(request.params), { offset: page.offset, limit: page.perPage });
        setPaginationHeaders(request, reply, externalUrl, page, { total });
        return items.map((discussion) => serializeDiscussion(discussion, externalUrl));
      });

      api.get(`${base}/:discussion_id`, { schema: { summary: `Get a thread of ${what}`, tags, params: DiscussionPath } }, async (request) => {
        const { id, discussion_id } = request.params;
        return serializeDiscussion(await discussions.get(id, requireActor(request), noteableOf(request.params), discussion_id), externalUrl);
      });

      api.post(base, { schema: { summary: `Start a thread on ${what}${onMergeRequest ? ' (a DiffNote with a position)' : ''}`, tags, params: TargetPath, body: CreateBody } }, async (request, reply) => {
        const actor = requireActor(request);
        const { body } = request;
        if (body.body === undefined) throw missingParam('body');
        const position = 'position' in body ? (body.position as DiffPositionInput | undefined) : undefined;
        const discussion = await discussions.create(request.params.id, actor, noteableOf(request.params), { body: body.body, createdAt: body.created_at, position });
        return reply.code(201).send(serializeDiscussion(discussion, externalUrl));
      });

      api.post(`${base}/:discussion_id/notes`, { schema: { summary: `Reply in a thread of ${what}`, tags, params: DiscussionPath, body: Type.Object({ ...BODY, ...CREATED_AT }) } }, async (request, reply) => {
        const actor = requireActor(request);
        const { id, discussion_id } = request.params;
        if (request.body.body === undefined) throw missingParam('body');
        const note = await discussions.reply(id, actor, noteableOf(request.params), discussion_id, { body: request.body.body, createdAt: request.body.created_at });
        return reply.code(201).send(serializeNote(note, externalUrl));
      });

      api.get(`${base}/:discussion_id/notes/:note_id`, { schema: { summary: `Get a note in a thread of ${what}`, tags, params: NotePath } }, async (request) => {
        const { id, note_id, discussion_id } = request.params;
        const actor = requireActor(request);
        await discussions.assertInThread(id, actor, noteableOf(request.params), discussion_id, note_id);
        return serializeNote(await notes.get(id, actor, noteableOf(request.params), note_id), externalUrl);
      });

      api.put(`${base}/:discussion_id/notes/:note_id`, { schema: { summary: `Edit${onMergeRequest ? ' or resolve' : ''} a note in a thread of ${what}`, tags, params: NotePath, body: NoteUpdate } }, async (request) => {
        const actor = requireActor(request);
        const { id, note_id } = request.params;
        const { body, resolved } = request.body;
        // Grape's exactly_one_of.
        if (body === undefined && resolved === undefined) throw atLeastOneOf(['body', 'resolved'], 'body, resolved are missing, exactly one parameter must be provided');
        if (body !== undefined && resolved !== undefined) throw invalidParams([{ name: 'body, resolved', problem: 'are mutually exclusive' }]);
        const ref = noteableOf(request.params);
        await discussions.assertInThread(id, actor, ref, request.params.discussion_id, note_id);
        const view = resolved === undefined ? await notes.update(id, actor, ref, note_id, body!) : await discussions.resolveNote(id, actor, ref, note_id, resolved);
        return serializeNote(view, externalUrl);
      });

      api.delete(`${base}/:discussion_id/notes/:note_id`, { schema: { summary: `Delete a note in a thread of ${what}`, tags, params: NotePath } }, async (request, reply) => {
        const { id, note_id, discussion_id } = request.params;
        const actor = requireActor(request);
        await discussions.assertInThread(id, actor, noteableOf(request.params), discussion_id, note_id);
        await notes.remove(id, actor, noteableOf(request.params), note_id);
        return reply.code(204).send();
      });

      if (!onMergeRequest) continue;
      api.put(`${base}/:discussion_id`, { schema: { summary: 'Resolve or unresolve a thread of a merge request', tags, params: DiscussionPath, querystring: ResolveQuery, body: Type.Optional(ResolveQuery) } }, async (request) => {
        const { id, discussion_id } = request.params;
        const resolved = request.query.resolved ?? request.body?.resolved;
        if (resolved === undefined) throw missingParam('resolved');
        return serializeDiscussion(await discussions.resolve(id, requireActor(request), noteableOf(request.params), discussion_id, resolved), externalUrl);
      });
    }
  };
}
