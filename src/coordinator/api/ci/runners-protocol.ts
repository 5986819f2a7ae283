import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { Param } from '../../http/gitlab-params.ts';
import { serializeRunnerRegistration } from '../../http/serializers/ci/runners.ts';
import type { RunnerReport } from '../../services/ci/runners/registration.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

/** `info` of the runner's bodies (reference/runner-protocol.md §2.2, §3.1); features are read and not kept. */
export const RunnerInfoParam = Type.Object({
  name: Type.Optional(Param.string({ description: 'Program name (gitlab-runner)' })),
  version: Type.Optional(Param.string()),
  revision: Type.Optional(Param.string()),
  platform: Type.Optional(Param.string()),
  architecture: Type.Optional(Param.string()),
  executor: Type.Optional(Param.string()),
  shell: Type.Optional(Param.string()),
  features: Type.Optional(Type.Record(Type.String(), Param.boolean(), { description: 'What the runner supports' })),
});

export const ACCESS_LEVELS = ['not_protected', 'ref_protected'] as const;

const RegisterBody = Type.Object({
  token: Param.string({ description: "Registration token: the instance's, a group's or a project's" }),
  description: Type.Optional(Param.string({ description: 'Description of the runner' })),
  tag_list: Type.Optional(Param.strings({ description: 'Tags: a comma-separated string or an array' })),
  run_untagged: Type.Optional(Param.boolean({ description: 'Take jobs without tags (default true)' })),
  locked: Type.Optional(Param.boolean({ description: 'Lock a project runner to its project' })),
  active: Type.Optional(Param.boolean({ description: 'false registers the runner paused' })),
  access_level: Type.Optional(Param.oneOf([...ACCESS_LEVELS], { description: 'ref_protected: only jobs of protected refs' })),
  maximum_timeout: Type.Optional(Param.integer({ description: 'Cap on job timeouts, in seconds (at least 600)' })),
  info: Type.Optional(RunnerInfoParam),
});

const RunnerTokenBody = Type.Object({
  token: Param.string({ description: "The runner's authentication token" }),
  info: Type.Optional(RunnerInfoParam),
});

const tags = ['runner protocol'];

/** What the request tells about the runner: its `info` and its address. */
export function reportOf(info: { name?: string; version?: string; revision?: string; platform?: string; architecture?: string; executor?: string } | undefined, ip: string): RunnerReport {
  const { name, version, revision, platform, architecture, executor } = info ?? {};
  return { info: { name, version, revision, platform, architecture, executor }, ipAddress: ip };
}

/**
 * Registration as gitlab-runner does it (reference/runner-protocol.md §2): `POST /runners`
 * (201 `{id, token}`), `POST /runners/verify` (200), `DELETE /runners` (204); 403 for a
 * token that matches nothing. The caller is a runner, identified by the body's `token`.
 */
export function runnerProtocolRoutes({ runnerRegistration }: CoordinatorServices, _edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.post('/runners', { schema: { summary: 'Register a runner with a registration token', tags, body: RegisterBody } }, async (request, reply) => {
      const body = request.body;
      const { runner, token } = await runnerRegistration.register({
        token: body.token,
        description: body.description,
        tagList: body.tag_list,
        runUntagged: body.run_untagged,
        locked: body.locked,
        active: body.active,
        accessLevel: body.access_level,
        maximumTimeout: body.maximum_timeout,
        ...reportOf(body.info, request.ip),
      });
      return reply.code(201).send(serializeRunnerRegistration(runner.id, token));
    });

    api.post('/runners/verify', { schema: { summary: "Check a runner's token", tags, body: RunnerTokenBody } }, async (request, reply) => {
      await runnerRegistration.verify(request.body.token, reportOf(request.body.info, request.ip));
      return reply.code(200).send(200);
    });

    api.delete('/runners', { schema: { summary: 'Unregister the runner owning the token', tags, querystring: RunnerTokenBody } }, async (request, reply) => {
      await runnerRegistration.unregister(request.query.token, reportOf(request.query.info, request.ip));
      return reply.code(204).send();
    });
  };
}
