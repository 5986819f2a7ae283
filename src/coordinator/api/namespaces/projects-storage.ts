import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { CoordinatorServices } from '../../wiring.ts';
import { ProjectId } from './projects-schemas.ts';

/** `GET /projects/:id/storage` (administrators): GitLab's `{project_id, disk_path, created_at, repository_storage}`. */
export function projectStorageRoutes({ projectStorage }: CoordinatorServices): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const schema = { summary: "Where a project's repository is stored (administrators)", tags: ['projects'], params: ProjectId };
    api.get('/projects/:id/storage', { schema }, async (request) => {
      const storage = await projectStorage.describe(request.params.id, request.actor);
      return { project_id: storage.projectId, disk_path: storage.diskPath, created_at: storage.createdAt, repository_storage: storage.repositoryStorage };
    });
  };
}
