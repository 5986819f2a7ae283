import type { FastifyInstance } from 'fastify';
import { GantryError } from '../../shared/errors.ts';
import { VISIBILITIES } from '../../storage/types.ts';
import type { CoordinatorContext } from '../context.ts';
import { requireActor, requireAdmin } from '../http/auth.ts';
import type { ErrorAnswer } from '../http/error-responses.ts';
import { serializeGroup } from '../http/serializers/groups.ts';
import type { Params } from '../http/params.ts';
import { paramsOf } from '../http/request-params.ts';
import { GroupChangesService, type GroupAttributes } from '../services/groups-changes.ts';
import { GroupSharesService } from '../services/group-shares.ts';
import type { GroupsService } from '../services/groups.ts';

/** Moving a project into a group states its refusal as a field error: `{"message":{"new_namespace":[...]}}`. */
const transferRefusedAsField: ErrorAnswer = {
  status: 400,
  body: (error) => ({ message: { new_namespace: [error.details.reason ?? error.message] } }),
};

/** POST /groups, PUT and DELETE /groups/:id, POST/DELETE /groups/:id/share, POST /groups/:id/projects/:project_id. */
export function registerGroupChangeRoutes(api: FastifyInstance, context: CoordinatorContext, groups: GroupsService): void {
  const changes = new GroupChangesService(context);

  api.post('/groups', async (request, reply) => {
    const actor = requireActor(request);
    const params = paramsOf(request);
    const name = params.requiredString('name');
    const path = params.requiredString('path');
    const input = { ...groupAttributes(params), name, path, parent_id: params.int('parent_id') };
    const group = await changes.create(actor, input);
    return reply.code(201).send(serializeGroup(group, context.config.externalUrl));
  });

  api.put<{ Params: { id: string } }>('/groups/:id', async (request) => {
    const actor = requireActor(request);
    const attributes = groupAttributes(paramsOf(request));
    const group = await groups.readable(request.params.id, actor);
    return groups.details(await changes.update(group, actor, attributes), actor);
  });

  api.delete<{ Params: { id: string } }>('/groups/:id', async (request, reply) => {
    const actor = requireActor(request);
    const group = await groups.readable(request.params.id, actor);
    await changes.remove(group, actor);
    return reply.code(202).send({ message: '202 Accepted' });
  });

  const shares = new GroupSharesService(context);
  api.post<{ Params: { id: string } }>('/groups/:id/share', async (request, reply) => {
    const actor = requireActor(request);
    const params = paramsOf(request);
    const input = { groupId: params.requiredInt('group_id', { min: 1 }), groupAccess: params.requiredInt('group_access'), expiresAt: params.date('expires_at') };
    const group = await groups.readable(request.params.id, actor);
    await shares.share(group, actor, input);
    return reply.code(201).send(await groups.details(group, actor));
  });

  api.delete<{ Params: { id: string; group_id: string } }>('/groups/:id/share/:group_id', async (request, reply) => {
    const actor = requireActor(request);
    const invitedGroupId = paramsOf(request).requiredInt('group_id', { min: 1 });
    await shares.unshare(await groups.readable(request.params.id, actor), actor, invitedGroupId);
    return reply.code(204).send();
  });

  api.post<{ Params: { id: string; project_id: string } }>('/groups/:id/projects/:project_id', { config: { errorAnswers: { GANTRY_E_TRANSFER_REFUSED: transferRefusedAsField } } }, async (request, reply) => {
    const actor = requireAdmin(request);
    const group = await context.lookup.findGroup(request.params.id);
    if (!group) throw new GantryError('GANTRY_E_GROUP_NOT_FOUND');
    await changes.transferProject(group, request.params.project_id);
    return reply.code(201).send(await groups.details(group, actor));
  });
}

function groupAttributes(params: Params): GroupAttributes {
  return {
    name: params.string('name'),
    path: params.string('path'),
    description: params.string('description'),
    visibility: params.oneOf('visibility', VISIBILITIES),
    lfs_enabled: params.bool('lfs_enabled'),
    request_access_enabled: params.bool('request_access_enabled'),
  };
}
