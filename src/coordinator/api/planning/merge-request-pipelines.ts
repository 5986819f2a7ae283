import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializePipeline, serializePipelineBasic } from '../../http/serializers/ci/pipelines.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const tags = ['merge requests'];
const MergeRequestPath = Type.Object({
  id: Param.string({ description: 'Project id or URL-encoded full path' }),
  merge_request_iid: Param.integer({ description: 'The merge request iid' }),
});
const PageQuery = Type.Object(PAGINATION);

/**
 * `GET /projects/:id/merge_requests/:merge_request_iid/pipelines` (its merge request pipelines
 * and its source branch's pipelines at its commits, newest first, basic entity) and `POST` of
 * the same path (a merge request pipeline now: 201 with the full entity).
 */
export function mergeRequestPipelinesRoutes({ mergeRequestPipelinesView }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const path = '/projects/:id/merge_requests/:merge_request_iid/pipelines';

    api.get(path, { schema: { summary: "A merge request's pipelines", tags, params: MergeRequestPath, querystring: PageQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await mergeRequestPipelinesView.list(request.params.id, request.actor, request.params.merge_request_iid, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map(({ pipeline, target }) => serializePipelineBasic(pipeline, { externalUrl: edge.externalUrl, projectFullPath: target.fullPath }));
    });

    api.post(path, { schema: { summary: 'Create a merge request pipeline', tags, params: MergeRequestPath } }, async (request, reply) => {
      const { view, target } = await mergeRequestPipelinesView.create(request.params.id, requireActor(request), request.params.merge_request_iid);
      return reply.code(201).send(serializePipeline(view, { externalUrl: edge.externalUrl, projectFullPath: target.fullPath }));
    });
  };
}
