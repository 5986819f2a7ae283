import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeRegistrationToken, serializeRunner } from '../../http/serializers/ci/runners.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { PROJECT_ID, ProjectPath } from '../repository/params.ts';
import { OwnedListQuery, runnerFilterOf } from './runners.ts';

const EnableBody = Type.Object({ runner_id: Param.integer({ description: 'The project runner to enable' }) });
const RunnerOfProjectPath = Type.Object({ ...PROJECT_ID, runner_id: Param.integer({ description: 'Runner id' }) });
const GroupPath = Type.Object({ id: Param.string({ description: 'Group id or URL-encoded full path' }) });

const tags = ['runners'];

/** `/projects/:id/runners` (list, enable, disable) and the project and group registration-token resets. */
export function projectRunnersRoutes({ projectRunners }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/runners';

    api.get(base, { schema: { summary: "List a project's runners (its own, its groups', and shared ones it uses)", tags, params: ProjectPath, querystring: OwnedListQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const filter = runnerFilterOf(request.query);
      const { items, total } = await projectRunners.list(requireActor(request), request.params.id, filter, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map(serializeRunner);
    });

    api.post(base, { schema: { summary: 'Enable a project runner in this project too', tags, params: ProjectPath, body: EnableBody } }, async (request, reply) => {
      return reply.code(201).send(serializeRunner(await projectRunners.enable(requireActor(request), request.params.id, request.body.runner_id)));
    });

    api.delete(`${base}/:runner_id`, { schema: { summary: 'Disable a runner in this project', tags, params: RunnerOfProjectPath } }, async (request, reply) => {
      await projectRunners.disable(requireActor(request), request.params.id, request.params.runner_id);
      return reply.code(204).send();
    });

    api.post(`${base}/reset_registration_token`, { schema: { summary: "Reset the project's runner registration token", tags, params: ProjectPath } }, async (request, reply) => {
      return reply.code(201).send(serializeRegistrationToken(await projectRunners.resetProjectToken(requireActor(request), request.params.id)));
    });

    api.post('/groups/:id/runners/reset_registration_token', { schema: { summary: "Reset the group's runner registration token", tags, params: GroupPath } }, async (request, reply) => {
      return reply.code(201).send(serializeRegistrationToken(await projectRunners.resetGroupToken(requireActor(request), request.params.id)));
    });
  };
}
