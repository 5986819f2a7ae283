import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { requireActor } from '../../http/auth.ts';
import { fieldsAnswer, messageAnswers } from '../../http/error-responses.ts';
import { serializeProject, serializeProjectGroupLink } from '../../http/serializers/namespaces/projects.ts';
import { PROJECT_UPDATE_PARAMETERS } from '../../services/namespaces/project-attributes.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { requireAtLeastOneOf } from '../at-least-one.ts';
import { AVATAR_UPLOAD, checkedAvatar, withProjectAvatar } from '../accounts/avatar-upload.ts';
import { notBlank } from './projects.ts';
import { ProjectForkBody, ProjectId, ProjectShareBody, ProjectTransferBody, ProjectUpdateBody, ShareLinkPath } from './projects-schemas.ts';

const tags = ['projects'];

/** Edit, delete, fork, star/unstar, archive/unarchive, transfer and sharing with groups of one project. */
export function projectActionsRoutes({ projectActions, avatars }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    const updateSchema = { summary: 'Edit a project (Maintainer)', tags, params: ProjectId, body: ProjectUpdateBody };
    api.put('/projects/:id', { schema: updateSchema, config: { ...AVATAR_UPLOAD, errorAnswers: messageAnswers(400, ['GANTRY_E_BRANCH_NOT_FOUND']) } }, async (request) => {
      const actor = requireActor(request);
      // A multipart `avatar` alone is a change too (it is among GitLab's at_least_one_of).
      if (request.uploads?.avatar === undefined) requireAtLeastOneOf(request.body, PROJECT_UPDATE_PARAMETERS);
      const { name, path, default_branch, ...attributes } = request.body;
      const update = { name: notBlank('name', name), path: notBlank('path', path), defaultBranch: notBlank('default_branch', default_branch), attributes };
      const avatar = await checkedAvatar(request, avatars);
      return serializeProject(await withProjectAvatar(await projectActions.update(request.params.id, actor, update), avatar, avatars), edge.externalUrl);
    });

    api.delete('/projects/:id', { schema: { summary: 'Delete a project (Owner)', tags, params: ProjectId } }, async (request, reply) => {
      await projectActions.remove(request.params.id, requireActor(request));
      reply.code(202);
      return { message: '202 Accepted' };
    });

    const forkSchema = { summary: 'Fork a project', tags, params: ProjectId, body: ProjectForkBody };
    api.post('/projects/:id/fork', { schema: forkSchema, config: { errorAnswers: { GANTRY_E_PROJECT_PATH_TAKEN: fieldsAnswer(409) } } }, async (request, reply) => {
      const actor = requireActor(request);
      const { body } = request;
      const fork = { namespace: body.namespace_id ?? body.namespace_path ?? body.namespace, name: notBlank('name', body.name), path: notBlank('path', body.path), visibility: body.visibility };
      const view = await projectActions.fork(request.params.id, actor, fork);
      reply.code(201);
      return serializeProject(view, edge.externalUrl);
    });

    for (const [action, starred] of [['star', true], ['unstar', false]] as const) {
      api.post(`/projects/:id/${action}`, { schema: { summary: starred ? 'Star a project' : 'Unstar a project', tags, params: ProjectId } }, async (request, reply) => {
        const view = await projectActions.setStarred(request.params.id, requireActor(request), starred);
        if (!view) return reply.code(304).send();
        reply.code(201);
        return serializeProject(view, edge.externalUrl);
      });
    }

    for (const [action, archived] of [['archive', true], ['unarchive', false]] as const) {
      api.post(`/projects/:id/${action}`, { schema: { summary: archived ? 'Archive a project (Maintainer)' : 'Unarchive a project (Maintainer)', tags, params: ProjectId } }, async (request, reply) => {
        const view = await projectActions.setArchived(request.params.id, requireActor(request), archived);
        reply.code(201);
        return serializeProject(view, edge.externalUrl);
      });
    }

    api.put('/projects/:id/transfer', { schema: { summary: 'Transfer a project to another namespace (Owner)', tags, params: ProjectId, body: ProjectTransferBody } }, async (request) => {
      const view = await projectActions.transfer(request.params.id, requireActor(request), request.body.namespace);
      return serializeProject(view, edge.externalUrl);
    });

    api.post('/projects/:id/share', { schema: { summary: 'Share a project with a group (Maintainer)', tags, params: ProjectId, body: ProjectShareBody } }, async (request, reply) => {
      const { group_id: groupId, group_access: groupAccess, expires_at: expiresAt } = request.body;
      const link = await projectActions.share(request.params.id, requireActor(request), { groupId, groupAccess, expiresAt });
      reply.code(201);
      return serializeProjectGroupLink(link);
    });

    api.delete('/projects/:id/share/:group_id', { schema: { summary: 'Stop sharing a project with a group (Maintainer)', tags, params: ShareLinkPath } }, async (request, reply) => {
      await projectActions.unshare(request.params.id, requireActor(request), request.params.group_id);
      return reply.code(204).send();
    });
  };
}
