import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import type { ErrorAnswerOverrides } from '../../http/error-responses.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders, type PageRequest } from '../../http/pagination.ts';
import { serializeJob } from '../../http/serializers/ci/jobs.ts';
import { serializeBridge } from '../../http/serializers/ci/bridges.ts';
import { serializePipeline, serializePipelineBasic } from '../../http/serializers/ci/pipelines.ts';
import type { PipelineResult } from '../../services/ci/pipelines/pipelines.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { PROJECT_ID, ProjectPath } from '../repository/params.ts';

/** Every status GitLab knows (`Ci::HasStatus::AVAILABLE_STATUSES`); filters on those Gantry never stores match nothing. */
const STATUSES = ['created', 'waiting_for_resource', 'preparing', 'waiting_for_callback', 'pending', 'running', 'success', 'failed', 'canceling', 'canceled', 'skipped', 'manual', 'scheduled'] as const;
const SOURCES = [
  'unknown', 'push', 'web', 'trigger', 'schedule', 'api', 'external', 'pipeline', 'chat', 'webide', 'merge_request_event',
  'external_pull_request_event', 'parent_pipeline', 'ondemand_dast_scan', 'ondemand_dast_validation', 'security_orchestration_policy',
] as const;

const PipelinePath = Type.Object({ ...PROJECT_ID, pipeline_id: Param.integer({ description: 'The pipeline id' }) });
const ListQuery = Type.Object({
  scope: Type.Optional(Param.oneOf(['running', 'pending', 'finished', 'branches', 'tags'], { description: 'running, pending, finished (success, failed, canceled, skipped), or the latest pipeline of each branch or tag' })),
  status: Type.Optional(Param.oneOf(STATUSES, { description: 'Only pipelines in this status' })),
  ref: Type.Optional(Param.string({ description: 'Only pipelines of this branch or tag' })),
  sha: Type.Optional(Param.string({ description: 'Only pipelines of this commit' })),
  yaml_errors: Type.Optional(Param.boolean({ description: 'true: only pipelines with configuration errors; false: only those without' })),
  username: Type.Optional(Param.string({ description: 'Username of the user who ran the pipelines' })),
  name: Type.Optional(Param.string({ description: 'Name of the user who ran the pipelines' })),
  source: Type.Optional(Param.oneOf(SOURCES, { description: 'How the pipelines were created' })),
  updated_before: Type.Optional(Param.dateTime({ description: 'Updated before this time (ISO 8601)' })),
  updated_after: Type.Optional(Param.dateTime({ description: 'Updated after this time (ISO 8601)' })),
  created_before: Type.Optional(Param.dateTime({ description: 'Created before this time (ISO 8601)' })),
  created_after: Type.Optional(Param.dateTime({ description: 'Created after this time (ISO 8601)' })),
  order_by: Type.Optional(Param.oneOf(['id', 'status', 'ref', 'updated_at', 'user_id'], { description: 'Order by (default id)' })),
  sort: Type.Optional(Param.oneOf(['asc', 'desc'], { description: 'Sort direction (default desc)' })),
  ...PAGINATION,
});
const SCOPE = Type.Optional(Type.Array(Param.oneOf(STATUSES), { description: 'Job statuses to show, one (`scope=failed`) or several (`scope[]=failed&scope[]=canceled`); all when absent' }));
const JobsQuery = Type.Object({
  scope: SCOPE,
  include_retried: Type.Optional(Param.boolean({ description: 'Also jobs a retry replaced (default false)' })),
  ...PAGINATION,
});
const BridgesQuery = Type.Object({ scope: SCOPE, ...PAGINATION });
const PageQuery = Type.Object(PAGINATION);

const LatestQuery = Type.Object({ ref: Type.Optional(Param.string({ description: 'A branch or tag; default: the default branch' })) });

/** GitLab finds pipelines with ActiveRecord's `find`: a missing one is its generic `404 Not found`. */
const PIPELINE_ANSWERS: ErrorAnswerOverrides = { GANTRY_E_PIPELINE_NOT_FOUND: { status: 404, body: () => ({ message: '404 Not found' }) } };
const config = { errorAnswers: PIPELINE_ANSWERS };

const tags = ['pipelines'];

/** `/projects/:id/pipelines[/:pipeline_id[/jobs|bridges|variables|retry|cancel]]`: the Pipelines API (creation lives elsewhere). */
export function pipelinesRoutes({ pipelines }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const present = ({ target, view }: PipelineResult) => serializePipeline(view, { externalUrl: edge.externalUrl, projectFullPath: target.fullPath });
  const slice = (page: PageRequest) => ({ offset: page.offset, limit: page.perPage });
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/pipelines';
    const one = `${base}/:pipeline_id`;

    api.get(base, { schema: { summary: "List a project's pipelines", tags, params: ProjectPath, querystring: ListQuery } }, async (request, reply) => {
      const { query } = request;
      const page = pageOf(query);
      const filters = {
        scope: query.scope,
        status: query.status,
        ref: query.ref,
        sha: query.sha,
        yamlErrors: query.yaml_errors,
        username: query.username,
        name: query.name,
        source: query.source,
        updatedBefore: query.updated_before,
        updatedAfter: query.updated_after,
        createdBefore: query.created_before,
        createdAfter: query.created_after,
        orderBy: query.order_by ?? 'id',
        sort: query.sort ?? 'desc',
      };
      const { target, items, total } = await pipelines.list(request.params.id, request.actor, filters, slice(page));
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((pipeline) => serializePipelineBasic(pipeline, { externalUrl: edge.externalUrl, projectFullPath: target.fullPath }));
    });

    api.get(`${base}/latest`, { schema: { summary: "The newest pipeline of a ref's current commit (default branch without ref)", tags, params: ProjectPath, querystring: LatestQuery } }, async (request) => {
      return present(await pipelines.latest(request.params.id, request.actor, request.query.ref));
    });

    api.get(one, { schema: { summary: 'Get a pipeline', tags, params: PipelinePath }, config }, async (request) => {
      return present(await pipelines.get(request.params.id, request.actor, request.params.pipeline_id));
    });

    api.post(`${one}/retry`, { schema: { summary: "Retry a pipeline's failed and canceled jobs", tags, params: PipelinePath }, config }, async (request, reply) => {
      return reply.code(201).send(present(await pipelines.retry(request.params.id, requireActor(request), request.params.pipeline_id)));
    });

    api.post(`${one}/cancel`, { schema: { summary: "Cancel a pipeline's jobs that may still run", tags, params: PipelinePath }, config }, async (request) => {
      return present(await pipelines.cancel(request.params.id, requireActor(request), request.params.pipeline_id));
    });

    api.delete(one, { schema: { summary: 'Delete a pipeline with its jobs, artifacts and traces (owners)', tags, params: PipelinePath }, config }, async (request, reply) => {
      await pipelines.remove(request.params.id, requireActor(request), request.params.pipeline_id);
      return reply.code(204).send();
    });

    api.get(`${one}/jobs`, { schema: { summary: "List a pipeline's jobs", tags, params: PipelinePath, querystring: JobsQuery }, config }, async (request, reply) => {
      const page = pageOf(request.query);
      const query = { scope: request.query.scope, includeRetried: request.query.include_retried ?? false };
      const { target, items, total } = await pipelines.jobs(request.params.id, request.actor, request.params.pipeline_id, query, slice(page));
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((view) => serializeJob({ ...view, target }, edge.externalUrl));
    });

    api.get(`${one}/bridges`, { schema: { summary: "List a pipeline's bridge jobs and their downstream pipelines", tags, params: PipelinePath, querystring: BridgesQuery }, config }, async (request, reply) => {
      const page = pageOf(request.query);
      const { target, items, total } = await pipelines.bridges(request.params.id, request.actor, request.params.pipeline_id, { scope: request.query.scope }, slice(page));
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      const urlBase = { externalUrl: edge.externalUrl, projectFullPath: target.fullPath };
      return items.map((view) => serializeBridge(view, urlBase));
    });

    api.get(`${one}/variables`, { schema: { summary: "List a pipeline's variables", tags, params: PipelinePath, querystring: PageQuery }, config }, async (request, reply) => {
      const page = pageOf(request.query);
      const variables = await pipelines.variables(request.params.id, request.actor, request.params.pipeline_id);
      const shown = variables.slice(page.offset, page.offset + page.perPage);
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total: variables.length });
      return shown.map(({ key, value, variable_type }) => ({ key, value, variable_type }));
    });
  };
}
