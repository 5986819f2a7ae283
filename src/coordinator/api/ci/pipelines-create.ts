import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { fieldsAnswer, type ErrorAnswerOverrides } from '../../http/error-responses.ts';
import { Param } from '../../http/gitlab-params.ts';
import { serializePipeline, type PipelineJson } from '../../http/serializers/ci/pipelines.ts';
import type { PipelineRecord } from '../../../storage/types-ci.ts';
import type { UserRecord } from '../../../storage/types.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const ProjectId = Type.Object({ id: Param.string({ description: 'Project id or URL-encoded full path' }) });
const ProjectIdAndRef = Type.Object({ id: Param.string({ description: 'Project id or URL-encoded full path' }), ref: Param.string({ description: 'Branch or tag' }) });

const Variable = Type.Object({
  key: Param.string({ minLength: 1, description: 'Letters, digits and _' }),
  value: Type.Optional(Param.string()),
  variable_type: Type.Optional(Param.oneOf(['env_var', 'file'])),
});

/** GitLab 17.11: values for the CI file's `spec:inputs` (text, numbers, booleans, arrays; a text JSON array is the array). */
const Inputs = Type.Record(Type.String(), Type.Unknown(), { description: 'Inputs for the CI file\'s spec:inputs: inputs[NAME]=value' });

const CreateBody = Type.Object({
  ref: Param.string({ minLength: 1, description: 'Branch or tag to run the pipeline for' }),
  variables: Type.Optional(Type.Array(Variable, { description: 'Variables of the run: [{key, value, variable_type}]' })),
  inputs: Type.Optional(Inputs),
});

const TriggerBody = Type.Object({
  token: Param.string({ minLength: 1, description: 'The trigger token' }),
  ref: Param.string({ minLength: 1, description: 'Branch or tag' }),
  variables: Type.Optional(Param.hash({ description: 'variables[KEY]=value' })),
  inputs: Type.Optional(Inputs),
});
const TriggerBodyWithRef = Type.Object({ token: TriggerBody.properties.token, variables: TriggerBody.properties.variables, inputs: TriggerBody.properties.inputs });

/** GitLab answers a pipeline its service refused with `{"message": {"base": [...]}}`, unknown refs included. */
const REFUSED_AS_BASE: ErrorAnswerOverrides = { GANTRY_E_REF_NOT_FOUND: fieldsAnswer(400), GANTRY_E_COMMIT_NOT_FOUND: fieldsAnswer(400) };

const tags = ['pipelines'];

/** Creating pipelines by hand: `POST /projects/:id/pipeline` and trigger tokens. */
export function pipelineCreationRoutes({ pipelineRuns }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.post('/projects/:id/pipeline', { schema: { summary: 'Run a pipeline for a branch or tag', tags, params: ProjectId, body: CreateBody }, config: { errorAnswers: REFUSED_AS_BASE } }, async (request, reply) => {
      const variables = (request.body.variables ?? []).map((variable) => ({ key: variable.key, value: variable.value ?? '', variableType: variable.variable_type ?? ('env_var' as const) }));
      const view = await pipelineRuns.runFromApi(request.params.id, requireActor(request), { ref: request.body.ref, variables, ...(request.body.inputs ? { inputs: request.body.inputs } : {}) });
      return reply.code(201).send(serializeRun(view, edge.externalUrl));
    });

    const triggerSchema = { summary: 'Run a pipeline with a trigger token', tags, params: ProjectId, body: TriggerBody };
    api.post('/projects/:id/trigger/pipeline', { schema: triggerSchema, config: { errorAnswers: REFUSED_AS_BASE } }, async (request, reply) => {
      const view = await pipelineRuns.runFromTrigger({ projectRef: request.params.id, token: request.body.token, ref: request.body.ref, variables: stringHash(request.body.variables), ...(request.body.inputs ? { inputs: request.body.inputs } : {}) });
      return reply.code(201).send(serializeRun(view, edge.externalUrl));
    });

    const refTriggerSchema = { summary: 'Run a pipeline with a trigger token (ref in the path)', tags, params: ProjectIdAndRef, body: TriggerBodyWithRef };
    api.post('/projects/:id/ref/:ref/trigger/pipeline', { schema: refTriggerSchema, config: { errorAnswers: REFUSED_AS_BASE } }, async (request, reply) => {
      const view = await pipelineRuns.runFromTrigger({ projectRef: request.params.id, token: request.body.token, ref: request.params.ref, variables: stringHash(request.body.variables), ...(request.body.inputs ? { inputs: request.body.inputs } : {}) });
      return reply.code(201).send(serializeRun(view, edge.externalUrl));
    });
  };
}

function stringHash(hash: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(hash ?? {}).map(([key, value]) => [key, String(value)]));
}

/** A new pipeline as the pipelines API shows one. */
function serializeRun(run: { pipeline: PipelineRecord; user: UserRecord | null; projectPath: string }, externalUrl: string): PipelineJson {
  return serializePipeline({ pipeline: run.pipeline, user: run.user }, { externalUrl, projectFullPath: run.projectPath });
}
