import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { serializeLabel } from '../../http/serializers/planning/labels.ts';
import type { CoordinatorServices } from '../../wiring.ts';

const LabelPath = Type.Object({ id: Param.string({ description: 'Project id or URL-encoded full path' }), label_id: Param.string({ description: 'The label id or name' }) });

/** `PUT /projects/:id/labels/:label_id/promote`: 200 with the group label (GitLab's GroupLabel entity). */
export function labelPromoteRoutes({ labelPromote }: CoordinatorServices): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    api.put('/projects/:id/labels/:label_id/promote', { schema: { summary: 'Promote a project label to a group label', tags: ['labels'], params: LabelPath } }, async (request) => {
      return serializeLabel(await labelPromote.promote(request.params.id, requireActor(request), request.params.label_id), false);
    });
  };
}
