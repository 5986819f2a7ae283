import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeCommitStatus } from '../../http/serializers/ci/commit-statuses.ts';
import { COMMIT_STATUS_STATES, type StatusInput } from '../../services/ci/pipelines/commit-statuses.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { PROJECT_ID } from '../repository/params.ts';

const ShaPath = Type.Object({ ...PROJECT_ID, sha: Param.string({ description: 'Commit SHA' }) });

const ListQuery = Type.Object({
  ref: Type.Optional(Param.string({ description: 'Only statuses of this branch or tag' })),
  stage: Type.Optional(Param.string({ description: 'Only statuses of this stage' })),
  name: Type.Optional(Param.string({ description: 'Only statuses (jobs) of this name' })),
  all: Type.Optional(Param.boolean({ description: 'Every status, not only the latest of each name' })),
  pipeline_id: Type.Optional(Param.integer({ description: 'Only the statuses of this pipeline' })),
  order_by: Type.Optional(Param.oneOf(['id', 'pipeline_id'], { description: 'id (default) or pipeline_id' })),
  sort: Type.Optional(Param.oneOf(['asc', 'desc'], { description: 'asc (default) or desc' })),
  ...PAGINATION,
});

const CreateBody = Type.Object({
  state: Param.oneOf(COMMIT_STATUS_STATES, { description: 'The state of the status' }),
  ref: Type.Optional(Param.string({ description: 'Branch or tag of the status (default: the first branch holding the commit)' })),
  name: Type.Optional(Param.string({ description: 'Label of the status (default `default`)' })),
  context: Type.Optional(Param.string({ description: 'Alias of name' })),
  target_url: Type.Optional(Param.string({ description: 'URL to associate with the status' })),
  description: Type.Optional(Param.string({ description: 'Short description of the status' })),
  coverage: Type.Optional(Param.number({ description: 'Total code coverage' })),
  pipeline_id: Type.Optional(Param.integer({ minimum: 1, description: 'The pipeline to set the status in' })),
});

const tags = ['commits'];

/** Commit statuses: `GET /projects/:id/repository/commits/:sha/statuses` and `POST /projects/:id/statuses/:sha`. */
export function commitStatusesRoutes({ commitStatuses }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const { externalUrl } = edge;
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/projects/:id/repository/commits/:sha/statuses', { schema: { summary: 'List the statuses of a commit', tags, params: ShaPath, querystring: ListQuery } }, async (request, reply) => {
      const { query } = request;
      const page = pageOf(query);
      const filter = { ref: query.ref || undefined, stage: query.stage || undefined, name: query.name || undefined, all: query.all ?? false, pipelineId: query.pipeline_id, orderBy: query.order_by, sort: query.sort };
      // GitLab's commit statuses API authenticates every caller, public projects included.
      const { items, total } = await commitStatuses.list(request.params.id, requireActor(request), request.params.sha, filter, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      return items.map((view) => serializeCommitStatus(view, externalUrl));
    });

    api.post('/projects/:id/statuses/:sha', { schema: { summary: 'Set the status of a commit', tags, params: ShaPath, body: CreateBody } }, async (request, reply) => {
      const actor = requireActor(request);
      const { body } = request;
      const input: StatusInput = {
        state: body.state,
        ref: body.ref || undefined,
        name: body.name || body.context || 'default',
        targetUrl: body.target_url,
        description: body.description,
        coverage: body.coverage,
        pipelineId: body.pipeline_id,
      };
      const view = await commitStatuses.create(request.params.id, actor, request.params.sha, input);
      return reply.code(201).send(serializeCommitStatus(view, externalUrl));
    });
  };
}
