import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { missingParam } from '../../../shared/errors.ts';
import { requireActor } from '../../http/auth.ts';
import type { CoordinatorServices } from '../../wiring.ts';
import { ProjectId } from '../namespaces/projects-schemas.ts';

/** `POST /projects/:id/uploads`: a file for issues and comments, answered with its Markdown link. */
export function uploadsRoutes({ projectUploads }: CoordinatorServices): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const schema = { summary: 'Upload a file to a project (multipart `file`; bounded by max_attachment_size)', tags: ['projects'], params: ProjectId };
    const config = { fileSizeLimit: () => projectUploads.sizeLimit() };
    api.post('/projects/:id/uploads', { schema, config }, async (request, reply) => {
      const actor = requireActor(request);
      const file = request.uploads?.file;
      if (file === undefined) throw missingParam('file');
      return reply.code(201).send(await projectUploads.upload(request.params.id, actor, file));
    });
  };
}
