import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type, type Static } from '#deps/typebox';
import { VISIBILITIES } from '../../../storage/types.ts';
import { requireActor } from '../../http/auth.ts';
import type { ErrorAnswer } from '../../http/error-responses.ts';
import { Param } from '../../http/gitlab-params.ts';
import { serializeGroup } from '../../http/serializers/namespaces/groups.ts';
import type { GroupAttributes } from '../../services/namespaces/groups-changes.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { GroupId } from './groups.ts';
import { groupDetailsRenderer } from './groups-details.ts';
import { AVATAR_UPLOAD, checkedAvatar, withGroupAvatar } from '../accounts/avatar-upload.ts';

/** Moving a project into a group states its refusal as a field error: `{"message":{"new_namespace":[...]}}`. */
const transferRefusedAsField: ErrorAnswer = {
  status: 400,
  body: (error) => ({ message: { new_namespace: [error.details.reason ?? error.message] } }),
};

const ATTRIBUTES = {
  description: Type.Optional(Param.string({ description: 'At most 255 characters' })),
  visibility: Type.Optional(Param.oneOf(VISIBILITIES)),
  lfs_enabled: Type.Optional(Param.boolean()),
  request_access_enabled: Type.Optional(Param.boolean()),
};

const CreateBody = Type.Object({
  name: Param.string({ minLength: 1, description: 'The group name' }),
  path: Param.string({ minLength: 1, description: 'The group path' }),
  ...ATTRIBUTES,
  parent_id: Type.Optional(Param.integer({ description: 'Create as a subgroup of this group' })),
});

const UpdateBody = Type.Object({
  name: Type.Optional(Param.string({ description: 'The group name' })),
  path: Type.Optional(Param.string({ description: 'The group path' })),
  ...ATTRIBUTES,
});

const ShareBody = Type.Object({
  group_id: Param.integer({ minimum: 1, description: 'The group to share with' }),
  group_access: Param.integer({ description: 'The level members of that group get: 10, 20, 30, 40 or 50' }),
  expires_at: Type.Optional(Param.date({ description: 'The share ends on this day' })),
});

const SharePath = Type.Object({ id: Param.string({ description: 'Group id or URL-encoded full path' }), group_id: Param.integer({ minimum: 1 }) });
const ProjectPath = Type.Object({ id: Param.string({ description: 'Group id or URL-encoded full path' }), project_id: Param.string({ description: 'Project id or URL-encoded full path' }) });

const tags = ['groups'];

/** POST /groups, PUT and DELETE /groups/:id, POST/DELETE /groups/:id/share, POST /groups/:id/projects/:project_id. */
export function groupChangesRoutes(services: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const { groupChanges, groupShares, avatars } = services;
  const renderDetails = groupDetailsRenderer(services, edge);
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.post('/groups', { schema: { summary: 'Create a group', tags, body: CreateBody }, config: AVATAR_UPLOAD }, async (request, reply) => {
      const { name, path, parent_id, ...attributes } = request.body;
      const avatar = await checkedAvatar(request, avatars);
      const { group } = await withGroupAvatar({ group: await groupChanges.create(requireActor(request), { ...groupAttributes(attributes), name, path, parent_id }) }, avatar, avatars);
      return reply.code(201).send(serializeGroup(group, edge.externalUrl));
    });

    api.put('/groups/:id', { schema: { summary: 'Update a group', tags, params: GroupId, body: UpdateBody }, config: AVATAR_UPLOAD }, async (request) => {
      const actor = requireActor(request);
      const avatar = await checkedAvatar(request, avatars);
      return renderDetails(await withGroupAvatar(await groupChanges.update(request.params.id, actor, groupAttributes(request.body)), avatar, avatars), actor);
    });

    api.delete('/groups/:id', { schema: { summary: 'Remove a group with its subgroups and projects', tags, params: GroupId } }, async (request, reply) => {
      await groupChanges.remove(request.params.id, requireActor(request));
      return reply.code(202).send({ message: '202 Accepted' });
    });

    api.post('/groups/:id/share', { schema: { summary: 'Share a group with another group', tags, params: GroupId, body: ShareBody } }, async (request, reply) => {
      const actor = requireActor(request);
      const { group_id: groupId, group_access: groupAccess, expires_at: expiresAt } = request.body;
      return reply.code(201).send(await renderDetails(await groupShares.share(request.params.id, actor, { groupId, groupAccess, expiresAt }), actor));
    });

    api.delete('/groups/:id/share/:group_id', { schema: { summary: 'Stop sharing a group with a group', tags, params: SharePath } }, async (request, reply) => {
      await groupShares.unshare(request.params.id, requireActor(request), request.params.group_id);
      return reply.code(204).send();
    });

    const transferSchema = { summary: 'Move a project into a group (administrators)', tags, params: ProjectPath };
    api.post('/groups/:id/projects/:project_id', { schema: transferSchema, config: { errorAnswers: { GANTRY_E_TRANSFER_REFUSED: transferRefusedAsField } } }, async (request, reply) => {
      const actor = requireActor(request);
      return reply.code(201).send(await renderDetails(await groupChanges.transferProject(actor, request.params.id, request.params.project_id), actor));
    });
  };
}

function groupAttributes(body: Static<typeof UpdateBody>): GroupAttributes {
  return {
    name: body.name,
    path: body.path,
    description: body.description,
    visibility: body.visibility,
    lfs_enabled: body.lfs_enabled,
    request_access_enabled: body.request_access_enabled,
  };
}
