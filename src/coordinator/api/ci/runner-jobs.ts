import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requestSignal } from '../../http/request-lifetimes.ts';
import { Param } from '../../http/gitlab-params.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { reportOf, RunnerInfoParam } from './runners-protocol.ts';

const JobRequestBody = Type.Object({
  token: Param.string({ description: "The runner's authentication token" }),
  system_id: Type.Optional(Param.string({ maxLength: 64, description: "The host's system id (gitlab-runner 16 and later; at most 64 characters)" })),
  info: Type.Optional(RunnerInfoParam),
  last_update: Type.Optional(Param.string({ description: 'The X-GitLab-Last-Update value of the previous answer' })),
  session: Type.Optional(
    Type.Object(
      { url: Type.Optional(Param.string()), certificate: Type.Optional(Param.string()), authorization: Type.Optional(Param.string()) },
      { description: "The runner's session server (interactive terminals; not used)" },
    ),
  ),
});

const tags = ['runner protocol'];

/**
 * `POST /jobs/request` (reference/runner-protocol.md §3): 201 with the job payload as
 * `application/json`; 204 with `X-GitLab-Last-Update` when there is nothing (after holding
 * the request while nothing new is queued); 409 when the claim lost a race; 403 for an
 * unknown runner token.
 */
export function runnerJobsRoutes({ jobRequests }: CoordinatorServices, _edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    // Long polls end (204) when the coordinator closes, before it waits for requests in flight.
    app.addHook('preClose', async () => jobRequests.close());

    api.post('/jobs/request', { schema: { summary: 'Request a job (runner)', tags, body: JobRequestBody } }, async (request, reply) => {
      const { body } = request;
      const outcome = await jobRequests.request(
        { token: body.token, lastUpdate: body.last_update, ...reportOf(body.info, request.ip, body.system_id) },
        () => requestSignal(reply),
      );
      switch (outcome.kind) {
        case 'job':
          return reply.code(201).type('application/json').send(outcome.payload);
        case 'none':
          return reply.code(204).header('X-GitLab-Last-Update', outcome.lastUpdate).send();
        case 'conflict':
          return reply.code(409).send({ message: '409 Conflict' });
      }
    });
  };
}
