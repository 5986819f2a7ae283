import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeAwardEmoji } from '../../http/serializers/planning/award-emoji.ts';
import type { AwardTarget } from '../../services/planning/award-emoji.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { noteableOf } from './notes.ts';

const tags = ['award_emoji'];
const PROJECT = { id: Param.string({ description: 'Project id or URL-encoded full path' }) };
const ISSUE = { ...PROJECT, issue_iid: Param.integer({ description: 'The issue iid' }) };
const MERGE_REQUEST = { ...PROJECT, merge_request_iid: Param.integer({ description: 'The merge request iid' }) };
const NOTE_ID = { note_id: Param.integer({ description: 'The id of one of its notes' }) };
const AWARD = { award_id: Param.integer({ description: 'The award emoji id' }) };
const PageQuery = Type.Object(PAGINATION);
const AwardBody = Type.Object({ name: Param.string({ minLength: 1, description: 'An emoji name without colons (`thumbsup`, `tada`; `+1` and `-1` are read as thumbsup and thumbsdown)' }) });

/**
 * Award emoji on issues, merge requests and their notes:
 * `.../issues/:issue_iid[/notes/:note_id]/award_emoji[/:award_id]` and
 * `.../merge_requests/:merge_request_iid[/notes/:note_id]/award_emoji[/:award_id]`.
 */
export function awardEmojiRoutes({ awardEmoji }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const answer = (view: Parameters<typeof serializeAwardEmoji>[0]) => serializeAwardEmoji(view, edge.externalUrl);

    for (const onMergeRequest of [false, true]) {
      for (const onNote of [false, true]) {
        const parent = onMergeRequest ? '/projects/:id/merge_requests/:merge_request_iid' : '/projects/:id/issues/:issue_iid';
        const base = `${parent}${onNote ? '/notes/:note_id' : ''}/award_emoji`;
        const noun = onMergeRequest ? 'merge request' : 'issue';
        const what = onNote ? `a ${noun} note's` : `${onMergeRequest ? 'a' : 'an'} ${noun}'s`;
        const TARGET = onMergeRequest ? MERGE_REQUEST : ISSUE;
        const Path = Type.Object(onNote ? { ...TARGET, ...NOTE_ID } : TARGET);
        const AwardPath = Type.Object(onNote ? { ...TARGET, ...NOTE_ID, ...AWARD } : { ...TARGET, ...AWARD });
        const target = (params: { id: string; note_id?: number }): AwardTarget => ({ projectRef: params.id, noteable: noteableOf(params), noteId: params.note_id });

        api.get(base, { schema: { summary: `List ${what} award emoji`, tags, params: Path, querystring: PageQuery } }, async (request, reply) => {
          const page = pageOf(request.query);
          const { items, total } = await awardEmoji.list(target(request.params), requireActor(request), { offset: page.offset, limit: page.perPage });
          setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
          return items.map(answer);
        });

        api.get(`${base}/:award_id`, { schema: { summary: `Get one of ${what} award emoji`, tags, params: AwardPath } }, async (request) => {
          return answer(await awardEmoji.get(target(request.params), requireActor(request), request.params.award_id));
        });

        api.post(base, { schema: { summary: `Award an emoji on ${what.replace("'s", '')}`, tags, params: Path, body: AwardBody } }, async (request, reply) => {
          const view = await awardEmoji.award(target(request.params), requireActor(request), request.body.name);
          return reply.code(201).send(answer(view));
        });

        api.delete(`${base}/:award_id`, { schema: { summary: 'Take back an award emoji (its awarder or an administrator)', tags, params: AwardPath } }, async (request, reply) => {
          await awardEmoji.remove(target(request.params), requireActor(request), request.params.award_id);
          return reply.code(204).send();
        });
      }
    }
  };
}
