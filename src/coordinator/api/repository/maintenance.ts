import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { contentDisposition, withFirstChunk } from '../../http/blob-response.ts';
import { Param } from '../../http/gitlab-params.ts';
import { HOUSEKEEPING_TASKS } from '../../services/repository/housekeeping.ts';
import type { CoordinatorServices } from '../../wiring.ts';
import { repositoryClient } from './client.ts';
import { ProjectPath } from './params.ts';

const HousekeepingBody = Type.Object({
  task: Type.Optional(Param.oneOf(HOUSEKEEPING_TASKS, { description: 'eager (default): git gc; prune: repack everything and prune unreachable objects' })),
});
const SnapshotQuery = Type.Object({ wiki: Type.Optional(Param.boolean({ description: "The wiki's repository instead (Gantry has no wikis)" })) });

const tags = ['projects'];

/** `POST /projects/:id/housekeeping` (queued on the task queue) and `GET /projects/:id/snapshot` (a streamed tar). */
export function repositoryMaintenanceRoutes({ housekeeping, snapshots }: CoordinatorServices): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.post('/projects/:id/housekeeping', { schema: { summary: "Queue housekeeping of the project's repository (Maintainers)", tags, params: ProjectPath, body: HousekeepingBody } }, async (request, reply) => {
      const actor = requireActor(request);
      const jobId = await housekeeping.request(request.params.id, actor, request.body.task ?? 'eager');
      // GitLab's answer is the queued job's id as a JSON string.
      return reply.code(201).type('application/json; charset=utf-8').send(JSON.stringify(jobId));
    });

    api.get('/projects/:id/snapshot', { schema: { summary: 'Download a tar of the bare repository (administrators)', tags, params: ProjectPath, querystring: SnapshotQuery } }, async (request, reply) => {
      const snapshot = await snapshots.snapshot(request.params.id, request.actor, request.query.wiki ?? false, repositoryClient(request, reply));
      // Streamed: the tar goes out as it is written; a failure before the first bytes is an error answer.
      const { body } = await withFirstChunk(snapshot.stream);
      reply.header('Content-Disposition', contentDisposition('attachment', snapshot.fileName));
      return reply.type('application/x-tar').send(body);
    });
  };
}
