import type { FastifyInstance } from 'fastify';
import { accessDenied } from '../../shared/errors.ts';
import { VISIBILITIES, type ProjectRecord, type UserRecord } from '../../storage/types.ts';
import type { CoordinatorContext } from '../context.ts';
import { requireActor } from '../http/auth.ts';
import { fieldsAnswer, messageAnswers } from '../http/error-responses.ts';
import { paramsOf } from '../http/request-params.ts';
import { MAINTAINER, OWNER } from '../services/permissions.ts';
import { PROJECT_UPDATE_PARAMETERS } from '../services/project-attributes.ts';
import type { ProjectPresenter } from '../services/project-presenter.ts';
import { ProjectSharesService } from '../services/project-shares.ts';
import { ProjectTransfer } from '../services/project-transfer.ts';
import type { ProjectsService } from '../services/projects.ts';
import { requireAtLeastOne } from './at-least-one.ts';

type IdRoute = { Params: { id: string } };

/** Edit, delete, fork, star/unstar, archive/unarchive, transfer and sharing with groups of one project. */
export function registerProjectActionRoutes(api: FastifyInstance, context: CoordinatorContext, projects: ProjectsService, presenter: ProjectPresenter): void {
  const { lookup, permissions, stores } = context;

  /** The project, readable by the caller (404 otherwise) and at `level` or above (403 otherwise). */
  async function projectAt(id: string, actor: UserRecord, level: typeof MAINTAINER | typeof OWNER): Promise<ProjectRecord> {
    const project = await lookup.readableProject(id, actor);
    if (!(await permissions.projectLevelAtLeast(project, actor, level))) throw accessDenied();
    return project;
  }

  api.put<IdRoute>('/projects/:id', { config: { errorAnswers: messageAnswers(400, ['GANTRY_E_BRANCH_NOT_FOUND']) } }, async (request) => {
    const actor = requireActor(request);
    const params = paramsOf(request);
    requireAtLeastOne(params, PROJECT_UPDATE_PARAMETERS);
    const project = await projectAt(request.params.id, actor, MAINTAINER);
    return presenter.one(await projects.update(project, actor, params), actor);
  });

  api.delete<IdRoute>('/projects/:id', async (request, reply) => {
    const actor = requireActor(request);
    await projects.remove(await projectAt(request.params.id, actor, OWNER));
    reply.code(202);
    return { message: '202 Accepted' };
  });

  api.post<IdRoute>('/projects/:id/fork', { config: { errorAnswers: { GANTRY_E_PROJECT_PATH_TAKEN: fieldsAnswer(409) } } }, async (request, reply) => {
    const actor = requireActor(request);
    const params = paramsOf(request);
    const source = await lookup.readableProject(request.params.id, actor);
    const namespace = params.string('namespace_id') ?? params.string('namespace_path') ?? params.string('namespace') ?? undefined;
    const forkRequest = { namespace, name: params.nonEmptyString('name'), path: params.nonEmptyString('path'), visibility: params.oneOf('visibility', VISIBILITIES) };
    const fork = await projects.fork(source, actor, forkRequest);
    reply.code(201);
    return presenter.one(fork, actor);
  });

  for (const [action, starred] of [['star', true], ['unstar', false]] as const) {
    api.post<IdRoute>(`/projects/:id/${action}`, async (request, reply) => {
      const actor = requireActor(request);
      const project = await lookup.readableProject(request.params.id, actor);
      const changed = starred
        ? await stores.projectQueries.star(actor.id, project.id, new Date().toISOString())
        : await stores.projectQueries.unstar(actor.id, project.id);
      if (!changed) return reply.code(304).send();
      reply.code(201);
      return presenter.one(project, actor);
    });
  }

  for (const [action, archived] of [['archive', true], ['unarchive', false]] as const) {
    api.post<IdRoute>(`/projects/:id/${action}`, async (request, reply) => {
      const actor = requireActor(request);
      const project = await projectAt(request.params.id, actor, MAINTAINER);
      const updated = (await stores.projects.update(project.id, { archived, updated_at: new Date().toISOString() })) ?? project;
      reply.code(201);
      return presenter.one(updated, actor);
    });
  }

  const transfer = new ProjectTransfer(context);
  api.put<IdRoute>('/projects/:id/transfer', async (request) => {
    const actor = requireActor(request);
    const project = await projectAt(request.params.id, actor, OWNER);
    const namespace = paramsOf(request).requiredString('namespace');
    return presenter.one(await transfer.transferByUser(project, actor, namespace), actor);
  });

  const shares = new ProjectSharesService(context);
  api.post<IdRoute>('/projects/:id/share', async (request, reply) => {
    const actor = requireActor(request);
    const project = await projectAt(request.params.id, actor, MAINTAINER);
    const params = paramsOf(request);
    const input = { groupId: params.requiredInt('group_id', { min: 1 }), groupAccess: params.requiredInt('group_access'), expiresAt: params.date('expires_at') };
    reply.code(201);
    return shares.share(project, actor, input);
  });

  api.delete<{ Params: { id: string; group_id: string } }>('/projects/:id/share/:group_id', async (request, reply) => {
    const actor = requireActor(request);
    const project = await projectAt(request.params.id, actor, MAINTAINER);
    const groupId = paramsOf(request).requiredInt('group_id', { min: 1 });
    await shares.unshare(project, groupId);
    return reply.code(204).send();
  });
}
