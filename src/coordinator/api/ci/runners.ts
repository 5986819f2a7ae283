import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type, type Static } from '#deps/typebox';
import { JOB_STATUSES } from '../../../pipeline/statuses.ts';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeRunnerJob } from '../../http/serializers/ci/runner-jobs.ts';
import { serializeRegistrationToken, serializeResetToken, serializeRunner, serializeRunnerDetail, serializeRunnerManager } from '../../http/serializers/ci/runners.ts';
import type { RunnerSettingsInput } from '../../services/ci/runners/rules.ts';
import type { RunnerFilter } from '../../services/ci/runners/views.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { requireAtLeastOneOf } from '../at-least-one.ts';
import { ACCESS_LEVELS } from './runners-protocol.ts';

/** GitLab 13's `Ci::Runner` vocabularies. */
export const RUNNER_STATUSES = ['active', 'paused', 'online', 'offline', 'not_connected'] as const;
export const RUNNER_TYPES = ['instance_type', 'group_type', 'project_type'] as const;
const LEGACY_TYPES = ['specific', 'shared'] as const;

const FILTERS = {
  type: Type.Optional(Param.oneOf([...RUNNER_TYPES], { description: 'Only runners of this type' })),
  status: Type.Optional(Param.oneOf([...RUNNER_STATUSES], { description: 'Only runners in this state' })),
  tag_list: Type.Optional(Param.strings({ description: 'Only runners carrying all these tags' })),
  ...PAGINATION,
};

/** `GET /runners` and `GET /projects/:id/runners`: `scope` is a status. */
export const OwnedListQuery = Type.Object({ scope: Type.Optional(Param.oneOf([...RUNNER_STATUSES], { description: 'Deprecated spelling of status' })), ...FILTERS });
/** `GET /runners/all`: `scope` is a status or a type (specific, shared). */
const AllListQuery = Type.Object({
  scope: Type.Optional(Param.oneOf([...LEGACY_TYPES, ...RUNNER_TYPES, ...RUNNER_STATUSES], { description: 'A status or a type (specific, shared)' })),
  ...FILTERS,
});

const RunnerPath = Type.Object({ id: Param.integer({ description: 'Runner id' }) });

const UPDATE_NAMES = ['description', 'active', 'paused', 'tag_list', 'run_untagged', 'locked', 'access_level', 'maximum_timeout', 'maintenance_note'] as const;
const UpdateBody = Type.Object({
  description: Type.Optional(Param.string({ description: 'Description of the runner' })),
  active: Type.Optional(Param.boolean({ description: 'false pauses the runner (deprecated: paused)' })),
  paused: Type.Optional(Param.boolean({ description: 'true pauses the runner (wins over active)' })),
  maintenance_note: Type.Optional(Param.string({ description: 'Free-form notes for administrators (1024 characters)' })),
  tag_list: Type.Optional(Param.strings({ description: 'The complete list of tags the runner ends up with' })),
  run_untagged: Type.Optional(Param.boolean({ description: 'Take jobs without tags' })),
  locked: Type.Optional(Param.boolean({ description: 'Keep a project runner out of other projects' })),
  access_level: Type.Optional(Param.oneOf([...ACCESS_LEVELS], { description: 'ref_protected: only jobs of protected refs' })),
  maximum_timeout: Type.Optional(Param.integer({ description: 'Cap on job timeouts, in seconds (at least 600)' })),
});

const JobsQuery = Type.Object({ status: Type.Optional(Param.oneOf([...JOB_STATUSES], { description: 'Only jobs in this status' })), ...PAGINATION });

const tags = ['runners'];

/** The typed list filter of a list route's query. */
export function runnerFilterOf(query: Static<typeof AllListQuery>): RunnerFilter {
  return { scope: query.scope, type: query.type, status: query.status, tagList: query.tag_list };
}

/** `/runners` (the caller's, all, one), `/runners/:id/jobs` and the instance registration token. */
export function runnersRoutes({ runners, projectRunners }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/runners', { schema: { summary: "List the caller's runners (projects they maintain, groups they own)", tags, querystring: OwnedListQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await runners.listOwned(requireActor(request), runnerFilterOf(request.query), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map(serializeRunner);
    });

    api.get('/runners/all', { schema: { summary: 'List every runner (administrators)', tags, querystring: AllListQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await runners.listAll(requireActor(request), runnerFilterOf(request.query), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map(serializeRunner);
    });

    api.post('/runners/reset_registration_token', { schema: { summary: 'Reset the instance registration token (administrators)', tags } }, async (request, reply) => {
      return reply.code(201).send(serializeRegistrationToken(await projectRunners.resetInstanceToken(requireActor(request))));
    });

    api.get('/runners/:id', { schema: { summary: 'Get a runner', tags, params: RunnerPath } }, async (request) => {
      return serializeRunnerDetail(await runners.get(requireActor(request), request.params.id), edge.externalUrl);
    });

    api.put('/runners/:id', { schema: { summary: 'Change a runner', tags, params: RunnerPath, body: UpdateBody } }, async (request) => {
      const actor = requireActor(request);
      const body = request.body;
      requireAtLeastOneOf(body, UPDATE_NAMES);
      const input: RunnerSettingsInput = {
        description: body.description,
        active: body.active,
        paused: body.paused,
        maintenanceNote: body.maintenance_note,
        tagList: body.tag_list,
        runUntagged: body.run_untagged,
        locked: body.locked,
        accessLevel: body.access_level,
        maximumTimeout: body.maximum_timeout,
      };
      return serializeRunnerDetail(await runners.update(actor, request.params.id, input), edge.externalUrl);
    });

    api.delete('/runners/:id', { schema: { summary: 'Remove a runner', tags, params: RunnerPath } }, async (request, reply) => {
      await runners.remove(requireActor(request), request.params.id);
      return reply.code(204).send();
    });

    api.get('/runners/:id/managers', { schema: { summary: "List a runner's managers (the hosts using its token)", tags, params: RunnerPath } }, async (request) => {
      return (await runners.managers(requireActor(request), request.params.id)).map(serializeRunnerManager);
    });

    api.post(
      '/runners/:id/reset_authentication_token',
      { schema: { summary: "Replace a runner's authentication token (administrators and its owners)", tags, params: RunnerPath } },
      async (request, reply) => reply.code(201).send(serializeResetToken(await runners.resetAuthenticationToken(requireActor(request), request.params.id))),
    );

    api.get('/runners/:id/jobs', { schema: { summary: 'List the jobs a runner took', tags, params: RunnerPath, querystring: JobsQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await runners.jobs(requireActor(request), request.params.id, { status: request.query.status }, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((view) => serializeRunnerJob(view, edge.externalUrl));
    });
  };
}
