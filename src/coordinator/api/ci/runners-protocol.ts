import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { Param } from '../../http/gitlab-params.ts';
import { serializeResetToken, serializeRunnerRegistration } from '../../http/serializers/ci/runners.ts';
import type { ManagerReport } from '../../services/ci/runners/manager-heartbeats.ts';
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
  active: Type.Optional(Param.boolean({ description: 'false registers the runner paused (deprecated: paused)' })),
  paused: Type.Optional(Param.boolean({ description: 'true registers the runner paused (wins over active)' })),
  maintenance_note: Type.Optional(Param.string({ description: 'Free-form notes for administrators (1024 characters)' })),
  maintainer_note: Type.Optional(Param.string({ description: 'Deprecated spelling of maintenance_note' })),
  access_level: Type.Optional(Param.oneOf([...ACCESS_LEVELS], { description: 'ref_protected: only jobs of protected refs' })),
  maximum_timeout: Type.Optional(Param.integer({ description: 'Cap on job timeouts, in seconds (at least 600)' })),
  info: Type.Optional(RunnerInfoParam),
});

const RunnerTokenBody = Type.Object({
  token: Param.string({ description: "The runner's authentication token" }),
  info: Type.Optional(RunnerInfoParam),
});

const SystemIdParam = Param.string({ maxLength: 64, description: "The host's system id (gitlab-runner 16 and later; `s_` or `r_` and 12 characters; at most 64, as GitLab stores it)" });

const VerifyBody = Type.Object({
  token: Param.string({ description: "The runner's authentication token" }),
  system_id: Type.Optional(SystemIdParam),
  info: Type.Optional(RunnerInfoParam),
});

const ManagerBody = Type.Object({
  token: Param.string({ description: "The runner's authentication token" }),
  system_id: SystemIdParam,
});

const tags = ['runner protocol'];

type InfoBody = { name?: string; version?: string; revision?: string; platform?: string; architecture?: string; executor?: string; features?: Record<string, boolean> };

/** What the request tells about the runner and its host: its `info`, `system_id` and address. */
export function reportOf(info: InfoBody | undefined, ip: string, systemId?: string): ManagerReport {
  const { name, version, revision, platform, architecture, executor, features } = info ?? {};
  return { info: { name, version, revision, platform, architecture, executor }, ipAddress: ip, systemId, features };
}

/**
 * Registration as gitlab-runner does it (reference/runner-protocol.md §2): `POST /runners`
 * (201 `{id, token, token_expires_at}`), `POST /runners/verify` (200, the same shape, so
 * `register --token glrt-…` learns its id), `POST /runners/reset_authentication_token` (201),
 * `DELETE /runners` and `DELETE /runners/managers` (204); 403 for a token that matches
 * nothing or expired. The caller is a runner, identified by the body's `token`.
 */
export function runnerProtocolRoutes({ runnerRegistration }: CoordinatorServices, _edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.post('/runners', { schema: { summary: 'Register a runner with a registration token', tags, body: RegisterBody } }, async (request, reply) => {
      const body = request.body;
      const registered = await runnerRegistration.register({
        token: body.token,
        description: body.description,
        tagList: body.tag_list,
        runUntagged: body.run_untagged,
        locked: body.locked,
        active: body.active,
        paused: body.paused,
        accessLevel: body.access_level,
        maximumTimeout: body.maximum_timeout,
        maintenanceNote: body.maintenance_note ?? body.maintainer_note,
        ...reportOf(body.info, request.ip),
      });
      return reply.code(201).send(serializeRunnerRegistration(registered));
    });

    api.post('/runners/verify', { schema: { summary: "Check a runner's token; record its host's manager", tags, body: VerifyBody } }, async (request, reply) => {
      const verified = await runnerRegistration.verify(request.body.token, reportOf(request.body.info, request.ip, request.body.system_id));
      return reply.code(200).type('application/json').send(serializeRunnerRegistration(verified));
    });

    api.post(
      '/runners/reset_authentication_token',
      { schema: { summary: "Replace a runner's token with a new one (the runner's own call)", tags, body: VerifyBody } },
      async (request, reply) => {
        const reset = await runnerRegistration.resetAuthenticationToken(request.body.token, reportOf(request.body.info, request.ip, request.body.system_id));
        return reply.code(201).send(serializeResetToken(reset));
      },
    );

    api.delete('/runners', { schema: { summary: 'Unregister the runner owning the token', tags, querystring: RunnerTokenBody } }, async (request, reply) => {
      await runnerRegistration.unregister(request.query.token, reportOf(request.query.info, request.ip));
      return reply.code(204).send();
    });

    api.delete('/runners/managers', { schema: { summary: "Unregister one host (system id) of the token's runner", tags, querystring: ManagerBody } }, async (request, reply) => {
      await runnerRegistration.unregisterManager(request.query.token, request.query.system_id, reportOf(undefined, request.ip));
      return reply.code(204).send();
    });
  };
}
