import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { serializeIssue } from '../../http/serializers/planning/issues.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const IssuePath = Type.Object({ id: Param.string({ description: 'Project id or URL-encoded full path' }), issue_iid: Param.integer({ description: 'The issue iid' }) });
const MoveBody = Type.Object({ to_project_id: Param.integer({ description: 'The project to move the issue to' }) });

/** `POST /projects/:id/issues/:issue_iid/move`: 201 with the new issue. */
export function issueMoveRoutes({ issueMove }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    api.post('/projects/:id/issues/:issue_iid/move', { schema: { summary: 'Move an issue to another project', tags: ['issues'], params: IssuePath, body: MoveBody } }, async (request, reply) => {
      const view = await issueMove.move(request.params.id, requireActor(request), request.params.issue_iid, request.body.to_project_id);
      return reply.code(201).send(serializeIssue(view, edge.externalUrl, true));
    });
  };
}
