import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { Param } from '../../http/gitlab-params.ts';
import { jsonArray } from '../../http/json-stream.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeMergeRequestDiffVersion } from '../../http/serializers/planning/merge-request-diff-versions.ts';
import { serializeCommit, serializeDiff, type CommitUrlBase } from '../../http/serializers/repository/commits.ts';
import type { MergeRequestDiffVersionAnswer } from '../../services/planning/merge-requests/diff-versions.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { repositoryClient } from '../repository/client.ts';

const tags = ['merge_requests'];
const MergeRequestPath = Type.Object({
  id: Param.string({ description: 'Project id or URL-encoded full path' }),
  merge_request_iid: Param.integer({ description: 'The merge request iid' }),
});
const VersionPath = Type.Object({ ...MergeRequestPath.properties, version_id: Param.integer({ description: 'The id of the diff version' }) });

/** `GET /projects/:id/merge_requests/:merge_request_iid/versions[/:version_id]`: the versions of a request's diff (GitLab's MergeRequestDiffs API). */
export function mergeRequestVersionsRoutes({ mergeRequestDiffVersions }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const { externalUrl } = edge;
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/merge_requests/:merge_request_iid/versions';

    api.get(base, { schema: { summary: "List a merge request's diff versions, newest first", tags, params: MergeRequestPath, querystring: Type.Object(PAGINATION) } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await mergeRequestDiffVersions.list(request.params.id, request.actor, request.params.merge_request_iid, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      return items.map(serializeMergeRequestDiffVersion);
    });

    api.get(`${base}/:version_id`, { schema: { summary: 'Get one diff version of a merge request, with its commits and diffs', tags, params: VersionPath } }, async (request, reply) => {
      const { id, merge_request_iid: iid, version_id: versionId } = request.params;
      const answer = await mergeRequestDiffVersions.one(id, request.actor, iid, versionId, repositoryClient(request, reply));
      // Streamed: the diffs are read from git as the answer is written, under GitLab's hard diff limits.
      return reply.type('application/json').send(Readable.from(versionJson(answer, { externalUrl, projectFullPath: answer.projectFullPath }), { objectMode: false }));
    });
  };
}

/** The version's fields, its commits, then its diffs as git gives them. */
async function* versionJson(answer: MergeRequestDiffVersionAnswer, urls: CommitUrlBase): AsyncGenerator<string> {
  const { diffs } = answer;
  try {
    const fields = JSON.stringify(serializeMergeRequestDiffVersion(answer.version));
    yield `${fields.slice(0, -1)},"commits":`;
    yield* jsonArray(answer.commits, (commit) => serializeCommit(commit, urls));
    yield ',"diffs":';
    yield* jsonArray(diffs, serializeDiff);
    yield '}';
  } finally {
    diffs.close();
  }
}
