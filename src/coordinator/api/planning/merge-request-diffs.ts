import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { Param } from '../../http/gitlab-params.ts';
import { jsonArray } from '../../http/json-stream.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeMergeRequestSingle } from '../../http/serializers/planning/merge-requests.ts';
import { serializeCommit, serializeDiff } from '../../http/serializers/repository/commits.ts';
import { CHANGES_COUNT_CAP, type MergeRequestChangesAnswer, type MergeRequestInProject } from '../../services/planning/merge-requests/changes.ts';
import type { Actor } from '../../services/access/permissions.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { repositoryClient } from '../repository/client.ts';

const tags = ['merge_requests'];
const MergeRequestPath = Type.Object({
  id: Param.string({ description: 'Project id or URL-encoded full path' }),
  merge_request_iid: Param.integer({ description: 'The merge request iid' }),
});
const ChangesQuery = Type.Object({
  access_raw_diffs: Type.Optional(Param.boolean({ description: 'Only the hard diff limits cut files (none are collapsed)' })),
  unidiff: Type.Optional(Param.boolean({ description: 'Accepted; diffs are always in unified format' })),
});
const PagedQuery = Type.Object({ ...PAGINATION, unidiff: Type.Optional(Param.boolean({ description: 'Accepted; diffs are always in unified format' })) });

/** `GET /projects/:id/merge_requests/:merge_request_iid/{changes,diffs,commits}`: what git says about a request. */
export function mergeRequestDiffsRoutes({ mergeRequestDiffs, mergeRequests, mergeRequestViews }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const { externalUrl } = edge;
  /** The request itself as the single answer shows it; `changes_count` comes from the diff itself (no second git run). */
  const jsonOf = async (found: MergeRequestInProject, actor: Actor): Promise<Record<string, unknown>> => {
    const view = await mergeRequestViews.one(found.mergeRequest);
    return { ...serializeMergeRequestSingle(await mergeRequests.detail(found.project, view, actor, false), externalUrl) };
  };
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/merge_requests/:merge_request_iid';

    api.get(`${base}/changes`, { schema: { summary: 'Get a merge request with its changes (deprecated by GitLab for /diffs, still used)', tags, params: MergeRequestPath, querystring: ChangesQuery } }, async (request, reply) => {
      const options = { expanded: request.query.access_raw_diffs === true };
      const found = await mergeRequestDiffs.locate(request.params.id, request.actor, request.params.merge_request_iid);
      // The request's own fields are read while git works out the diff's file listing.
      const [opened, described] = await Promise.allSettled([mergeRequestDiffs.changes(found, options, repositoryClient(request, reply)), jsonOf(found, request.actor)]);
      if (opened.status === 'rejected') throw opened.reason;
      const answer = opened.value;
      if (described.status === 'rejected') {
        answer.changes.close();
        throw described.reason;
      }
      const json = described.value;
      // Streamed: the diff is read from git as the answer is written, under GitLab's diff limits.
      return reply.type('application/json').send(Readable.from(changesJson(json, answer), { objectMode: false }));
    });

    api.get(`${base}/diffs`, { schema: { summary: "List a page of a merge request's diffs", tags, params: MergeRequestPath, querystring: PagedQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await mergeRequestDiffs.diffs(request.params.id, request.actor, request.params.merge_request_iid, { offset: page.offset, limit: page.perPage }, repositoryClient(request, reply));
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      return items.map(serializeDiff);
    });

    api.get(`${base}/commits`, { schema: { summary: "List a merge request's commits, newest first", tags, params: MergeRequestPath, querystring: Type.Object(PAGINATION) } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total, projectFullPath } = await mergeRequestDiffs.commits(request.params.id, request.actor, request.params.merge_request_iid, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      return items.map((commit) => serializeCommit(commit, { externalUrl, projectFullPath }));
    });
  };
}

/** The request's fields, then `changes` as git gives them, then `overflow` and `changes_count` (known once the diff was read). */
async function* changesJson(json: Record<string, unknown>, answer: MergeRequestChangesAnswer): AsyncGenerator<string> {
  const fields = { ...json };
  delete fields.changes;
  delete fields.overflow;
  delete fields.changes_count;
  const diffs = answer.changes;
  const opening = JSON.stringify(fields);
  try {
    yield `${opening.slice(0, -1)}${opening === '{}' ? '' : ','}"changes":`;
    yield* jsonArray(diffs, serializeDiff);
  } finally {
    diffs.close();
  }
  const overflow = diffs.overflow || answer.changesCount === `${CHANGES_COUNT_CAP}+`;
  yield `,"overflow":${String(overflow)},"changes_count":${JSON.stringify(answer.changesCount)}}`;
}
