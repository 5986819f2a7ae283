import type { FastifyPluginAsync } from 'fastify';
import { GantryError } from '../../shared/errors.ts';
import type { CoordinatorContext } from '../context.ts';
import { requireActor } from '../http/auth.ts';
import { pageRequest, setPaginationHeaders, slicePage } from '../http/pagination.ts';
import { paramsOf } from '../http/request-params.ts';
import { serializeProtectedTag } from '../http/serializers/protected-branches.ts';
import { BranchesService } from '../services/branches.ts';
import { ensureLevel } from '../services/protected-branches.ts';

interface ProjectPath {
  id: string;
}

interface RulePath extends ProjectPath {
  name: string;
}

/** `/projects/:id/protected_tags[...]`: Maintainer+ on every call, like protected branches. */
export function protectedTagsRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const branches = new BranchesService(context);
  const rules = context.protectedTags;
  const { externalUrl } = context.config;
  return async (api) => {
    const base = '/projects/:id/protected_tags';

    api.get<{ Params: ProjectPath }>(base, async (request, reply) => {
      const page = pageRequest(paramsOf(request));
      const target = await branches.forMaintainer(request.params.id, requireActor(request));
      const all = await rules.list(target.project);
      setPaginationHeaders(request, reply, externalUrl, page, { total: all.length });
      return slicePage(all, page).map(serializeProtectedTag);
    });

    api.get<{ Params: RulePath }>(`${base}/:name`, async (request) => {
      const target = await branches.forMaintainer(request.params.id, requireActor(request));
      return serializeProtectedTag(await rules.find(target.project, request.params.name));
    });

    api.post<{ Params: ProjectPath }>(base, async (request, reply) => {
      const params = paramsOf(request);
      const name = params.requiredString('name');
      const level = ensureLevel(params.int('create_access_level') ?? 40, 'create_access_level');
      const target = await branches.forMaintainer(request.params.id, requireActor(request));
      return reply.code(201).send(serializeProtectedTag(await rules.create(target.project, name, level)));
    });

    api.delete<{ Params: RulePath }>(`${base}/:name`, async (request, reply) => {
      const target = await branches.forMaintainer(request.params.id, requireActor(request));
      if (!(await rules.remove(target.project, request.params.name))) throw new GantryError('GANTRY_E_PROTECTED_TAG_NOT_FOUND');
      return reply.code(204).send();
    });
  };
}
