import type { FastifyPluginAsync } from 'fastify';
import { GantryError } from '../../shared/errors.ts';
import { parseRecordId } from '../../shared/record-ids.ts';
import type { CoordinatorContext } from '../context.ts';
import { requireActor, requireAdmin } from '../http/auth.ts';
import { pageRequest, setPaginationHeaders } from '../http/pagination.ts';
import { paramsOf } from '../http/request-params.ts';
import { serializeDeployKey, serializeProjectDeployKey } from '../http/serializers/deploy-keys.ts';
import { DeployKeysService } from '../services/deploy-keys.ts';

interface ProjectPath {
  id: string;
}

interface KeyPath extends ProjectPath {
  key_id: string;
}

/** A key id, else 404 like an unknown key. */
function keyId(raw: string): number {
  const id = parseRecordId(raw);
  if (id === undefined || id === null) throw new GantryError('GANTRY_E_DEPLOY_KEY_NOT_FOUND');
  return id;
}

/** `/deploy_keys` (admin) and `/projects/:id/deploy_keys[...]` (Maintainer+). */
export function deployKeysRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const keys = new DeployKeysService(context);
  const { externalUrl } = context.config;
  return async (api) => {
    const base = '/projects/:id/deploy_keys';

    api.get('/deploy_keys', async (request, reply) => {
      requireAdmin(request);
      const page = pageRequest(paramsOf(request));
      const { items, total } = await keys.listAll({ offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      return items.map(serializeDeployKey);
    });

    api.get<{ Params: ProjectPath }>(base, async (request, reply) => {
      const page = pageRequest(paramsOf(request));
      const project = await keys.project(request.params.id, requireActor(request));
      const { items, total } = await keys.list(project, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      return items.map(serializeProjectDeployKey);
    });

    api.get<{ Params: KeyPath }>(`${base}/:key_id`, async (request) => {
      const project = await keys.project(request.params.id, requireActor(request));
      return serializeProjectDeployKey(await keys.find(project, keyId(request.params.key_id)));
    });

    api.post<{ Params: ProjectPath }>(base, async (request, reply) => {
      const actor = requireActor(request);
      const params = paramsOf(request);
      const project = await keys.project(request.params.id, actor);
      const input = { title: params.requiredString('title'), key: params.requiredString('key'), canPush: params.bool('can_push') ?? false };
      return reply.code(201).send(serializeProjectDeployKey(await keys.add(project, actor, input)));
    });

    api.put<{ Params: KeyPath }>(`${base}/:key_id`, async (request) => {
      const params = paramsOf(request);
      const project = await keys.project(request.params.id, requireActor(request));
      const changes = { title: params.string('title'), canPush: params.bool('can_push') };
      return serializeProjectDeployKey(await keys.update(project, keyId(request.params.key_id), changes));
    });

    api.delete<{ Params: KeyPath }>(`${base}/:key_id`, async (request, reply) => {
      const project = await keys.project(request.params.id, requireActor(request));
      await keys.remove(project, keyId(request.params.key_id));
      return reply.code(204).send();
    });

    api.post<{ Params: KeyPath }>(`${base}/:key_id/enable`, async (request, reply) => {
      const actor = requireActor(request);
      const project = await keys.project(request.params.id, actor);
      return reply.code(201).send(serializeProjectDeployKey(await keys.enable(project, actor, keyId(request.params.key_id))));
    });
  };
}
