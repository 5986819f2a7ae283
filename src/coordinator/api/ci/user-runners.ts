import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { missingParam } from '../../../shared/errors.ts';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { serializeRunnerRegistration } from '../../http/serializers/ci/runners.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { RUNNER_TYPES } from './runners.ts';
import { ACCESS_LEVELS } from './runners-protocol.ts';

const CreateBody = Type.Object({
  runner_type: Param.oneOf([...RUNNER_TYPES], { description: 'instance_type (administrators), group_type (group owners) or project_type (Maintainers)' }),
  group_id: Type.Optional(Param.integer({ description: 'The group of a group_type runner' })),
  project_id: Type.Optional(Param.integer({ description: 'The project of a project_type runner' })),
  description: Type.Optional(Param.string({ description: 'Description of the runner' })),
  maintenance_note: Type.Optional(Param.string({ description: 'Free-form notes for administrators (1024 characters)' })),
  paused: Type.Optional(Param.boolean({ description: 'Create it paused (default false)' })),
  locked: Type.Optional(Param.boolean({ description: 'Lock a project runner to its project (default false)' })),
  run_untagged: Type.Optional(Param.boolean({ description: 'Take jobs without tags (default true)' })),
  tag_list: Type.Optional(Param.strings({ description: 'Tags: an array or a comma-separated string' })),
  access_level: Type.Optional(Param.oneOf([...ACCESS_LEVELS], { description: 'ref_protected: only jobs of protected refs' })),
  maximum_timeout: Type.Optional(Param.integer({ description: 'Cap on job timeouts, in seconds (at least 600)' })),
});

/**
 * `POST /user/runners` (GitLab 15.10+): create a runner as the signed-in user and receive its
 * `glrt-` authentication token (201 `{id, token, token_expires_at}`), the set-up
 * gitlab-runner 16 and later document (`gitlab-runner register --token glrt-…`).
 */
export function userRunnersRoutes({ userRunners }: CoordinatorServices, _edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    api.post('/user/runners', { schema: { summary: 'Create a runner and receive its authentication token', tags: ['runners'], body: CreateBody } }, async (request, reply) => {
      const actor = requireActor(request);
      const body = request.body;
      // grape's `given runner_type: ... requires :group_id` (and :project_id).
      if (body.runner_type === 'group_type' && body.group_id === undefined) throw missingParam('group_id');
      if (body.runner_type === 'project_type' && body.project_id === undefined) throw missingParam('project_id');
      const created = await userRunners.create(actor, {
        runnerType: body.runner_type,
        groupId: body.group_id,
        projectId: body.project_id,
        description: body.description,
        maintenanceNote: body.maintenance_note,
        paused: body.paused,
        locked: body.locked,
        runUntagged: body.run_untagged,
        tagList: body.tag_list,
        accessLevel: body.access_level,
        maximumTimeout: body.maximum_timeout,
      });
      return reply.code(201).send(serializeRunnerRegistration(created));
    });
  };
}
