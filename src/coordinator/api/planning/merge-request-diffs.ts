import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { Param } from '../../http/gitlab-params.ts';
import { jsonArray } from '../../http/json-stream.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
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

/**
 * The request itself as the changes answer shows it. The merge requests' own view (mr-core's
 * serializer) is passed in by the wiring; without one, GitLab's basic fields this area knows.
 */
export type MergeRequestJsonOf = (found: MergeRequestInProject, actor: Actor) => Promise<Record<string, unknown>>;

/** `GET /projects/:id/merge_requests/:merge_request_iid/{changes,diffs,commits}`: what git says about a request. */
export function mergeRequestDiffsRoutes({ mergeRequestDiffs }: CoordinatorServices, edge: EdgeConfig, jsonOf: MergeRequestJsonOf = basicMergeRequestJson(edge.externalUrl)): FastifyPluginAsync {
  const { externalUrl } = edge;
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/merge_requests/:merge_request_iid';

    api.get(`${base}/changes`, { schema: { summary: 'Get a merge request with its changes (deprecated by GitLab for /diffs, still used)', tags, params: MergeRequestPath, querystring: ChangesQuery } }, async (request, reply) => {
      const options = { expanded: request.query.access_raw_diffs === true };
      const answer = await mergeRequestDiffs.changes(request.params.id, request.actor, request.params.merge_request_iid, options, repositoryClient(request, reply));
      const json = await jsonOf(answer, request.actor).catch((error: unknown) => {
        answer.changes.close();
        throw error;
      });
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

/** GitLab's merge request fields that come from the record and git (the full entity is the merge requests view's). */
export function basicMergeRequestJson(externalUrl: string): MergeRequestJsonOf {
  return async ({ mergeRequest: mr, projectFullPath }) => ({
    id: mr.id,
    iid: mr.iid,
    project_id: mr.project_id,
    title: mr.title,
    description: mr.description,
    state: mr.state,
    created_at: mr.created_at,
    updated_at: mr.updated_at,
    merged_at: mr.merged_at,
    closed_at: mr.closed_at,
    target_branch: mr.target_branch,
    source_branch: mr.source_branch,
    source_project_id: mr.source_project_id,
    target_project_id: mr.project_id,
    draft: /^\s*(\[draft\]|\(draft\)|draft:|draft\s-\s|wip:)/i.test(mr.title),
    merge_status: mr.merge_status,
    sha: mr.head_sha,
    merge_commit_sha: mr.merge_commit_sha,
    squash_commit_sha: mr.squash_commit_sha,
    squash: mr.squash,
    diff_refs: mr.head_sha === null ? null : { base_sha: mr.base_sha, head_sha: mr.head_sha, start_sha: mr.start_sha },
    web_url: `${externalUrl}/${projectFullPath}/-/merge_requests/${mr.iid}`,
  });
}
