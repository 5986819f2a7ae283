import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializePipelineBasic } from '../../http/serializers/ci/pipelines.ts';
import { serializePipelineSchedule, serializePipelineScheduleDetails, serializeScheduleVariable } from '../../http/serializers/ci/settings.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const PROJECT_ID = { id: Param.string({ description: 'Project id or URL-encoded full path' }) };
const SCHEDULE_ID = { ...PROJECT_ID, pipeline_schedule_id: Param.integer({ description: 'The pipeline schedule id' }) };
const ProjectPath = Type.Object(PROJECT_ID);
const SchedulePath = Type.Object(SCHEDULE_ID);
const VariablePath = Type.Object({ ...SCHEDULE_ID, key: Param.string({ description: 'The variable key' }) });

const ListQuery = Type.Object({ scope: Type.Optional(Param.oneOf(['active', 'inactive'], { description: 'Only active or inactive schedules' })), ...PAGINATION });
const PipelinesQuery = Type.Object({ sort: Type.Optional(Param.oneOf(['asc', 'desc'], { description: 'By id: desc (default) or asc' })), ...PAGINATION });
const CreateBody = Type.Object({
  description: Param.string({ minLength: 1, description: 'What the schedule is for' }),
  ref: Param.string({ minLength: 1, description: 'The branch or tag the pipelines run for' }),
  cron: Param.string({ minLength: 1, description: 'Five-field cron expression (e.g. `0 1 * * *`)' }),
  cron_timezone: Type.Optional(Param.string({ description: 'IANA time zone of the cron expression (default UTC)' })),
  active: Type.Optional(Param.boolean({ description: 'Whether the schedule runs (default true)' })),
});
const UpdateBody = Type.Object({
  description: Type.Optional(Param.string({ description: 'What the schedule is for' })),
  ref: Type.Optional(Param.string({ description: 'The branch or tag the pipelines run for' })),
  cron: Type.Optional(Param.string({ description: 'Five-field cron expression' })),
  cron_timezone: Type.Optional(Param.string({ description: 'IANA time zone of the cron expression' })),
  active: Type.Optional(Param.boolean({ description: 'Whether the schedule runs' })),
});
const VARIABLE_TYPE = { variable_type: Type.Optional(Param.oneOf(['env_var', 'file'], { description: 'env_var (default) or file' })) };
const VariableCreateBody = Type.Object({
  key: Param.string({ minLength: 1, description: 'The key: at most 255 characters, only A-Z, a-z, 0-9 and _' }),
  value: Param.string({ description: 'The value' }),
  ...VARIABLE_TYPE,
});
const VariableUpdateBody = Type.Object({ value: Type.Optional(Param.string({ description: 'The value' })), ...VARIABLE_TYPE });

const tags = ['pipeline schedules'];

/**
 * `/projects/:id/pipeline_schedules`: list, get, create, edit, delete, take ownership and the
 * schedule's variables. Playing a schedule and running due ones belong to pipeline creation.
 */
export function pipelineSchedulesRoutes({ pipelineSchedules: schedules }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/pipeline_schedules';
    const one = `${base}/:pipeline_schedule_id`;

    api.get(base, { schema: { summary: "List a project's pipeline schedules", tags, params: ProjectPath, querystring: ListQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await schedules.list(request.params.id, requireActor(request), request.query.scope, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((view) => serializePipelineSchedule(view, edge.externalUrl));
    });

    api.get(`${one}/pipelines`, { schema: { summary: 'The pipelines a schedule created', tags, params: SchedulePath, querystring: PipelinesQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { id, pipeline_schedule_id: scheduleId } = request.params;
      const found = await schedules.pipelines(id, requireActor(request), scheduleId, request.query.sort ?? 'desc', { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total: found.total });
      return found.items.map((pipeline) => serializePipelineBasic(pipeline, { externalUrl: edge.externalUrl, projectFullPath: found.projectFullPath }));
    });

    api.get(one, { schema: { summary: 'Get a pipeline schedule with its variables', tags, params: SchedulePath } }, async (request) => {
      const { id, pipeline_schedule_id: scheduleId } = request.params;
      return serializePipelineScheduleDetails(await schedules.get(id, requireActor(request), scheduleId), edge.externalUrl);
    });

    api.post(base, { schema: { summary: 'Create a pipeline schedule (the caller owns it)', tags, params: ProjectPath, body: CreateBody } }, async (request, reply) => {
      const { body } = request;
      const input = { description: body.description, ref: body.ref, cron: body.cron, cronTimezone: body.cron_timezone, active: body.active };
      return reply.code(201).send(serializePipelineScheduleDetails(await schedules.create(request.params.id, requireActor(request), input), edge.externalUrl));
    });

    api.put(one, { schema: { summary: 'Edit a pipeline schedule', tags, params: SchedulePath, body: UpdateBody } }, async (request) => {
      const { id, pipeline_schedule_id: scheduleId } = request.params;
      const { body } = request;
      const changes = { description: body.description, ref: body.ref, cron: body.cron, cronTimezone: body.cron_timezone, active: body.active };
      return serializePipelineScheduleDetails(await schedules.update(id, requireActor(request), scheduleId, changes), edge.externalUrl);
    });

    api.post(`${one}/take_ownership`, { schema: { summary: 'Become the owner of a pipeline schedule', tags, params: SchedulePath } }, async (request, reply) => {
      const { id, pipeline_schedule_id: scheduleId } = request.params;
      const { view, alreadyOwned } = await schedules.takeOwnership(id, requireActor(request), scheduleId);
      // GitLab: 200 when the caller owned it already, 201 when ownership moved.
      return reply.code(alreadyOwned ? 200 : 201).send(serializePipelineScheduleDetails(view, edge.externalUrl));
    });

    api.delete(one, { schema: { summary: 'Delete a pipeline schedule', tags, params: SchedulePath } }, async (request, reply) => {
      const { id, pipeline_schedule_id: scheduleId } = request.params;
      await schedules.remove(id, requireActor(request), scheduleId);
      return reply.code(204).send();
    });

    api.post(`${one}/variables`, { schema: { summary: 'Create a variable of a pipeline schedule', tags, params: SchedulePath, body: VariableCreateBody } }, async (request, reply) => {
      const { id, pipeline_schedule_id: scheduleId } = request.params;
      const input = { key: request.body.key, value: request.body.value, variableType: request.body.variable_type };
      return reply.code(201).send(serializeScheduleVariable(await schedules.createVariable(id, requireActor(request), scheduleId, input)));
    });

    api.put(`${one}/variables/:key`, { schema: { summary: 'Edit a variable of a pipeline schedule', tags, params: VariablePath, body: VariableUpdateBody } }, async (request) => {
      const { id, pipeline_schedule_id: scheduleId, key } = request.params;
      const changes = { value: request.body.value, variableType: request.body.variable_type };
      return serializeScheduleVariable(await schedules.updateVariable(id, requireActor(request), scheduleId, key, changes));
    });

    api.delete(`${one}/variables/:key`, { schema: { summary: 'Delete a variable of a pipeline schedule', tags, params: VariablePath } }, async (request, reply) => {
      const { id, pipeline_schedule_id: scheduleId, key } = request.params;
      // GitLab answers 202 with the deleted variable.
      return reply.code(202).send(serializeScheduleVariable(await schedules.removeVariable(id, requireActor(request), scheduleId, key)));
    });
  };
}
