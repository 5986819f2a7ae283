import type { FastifyPluginAsync } from 'fastify';
import { GantryError } from '../../shared/errors.ts';
import type { CoordinatorContext } from '../context.ts';
import { requireActor } from '../http/auth.ts';
import { pageRequest, setPaginationHeaders, slicePage } from '../http/pagination.ts';
import { paramsOf } from '../http/request-params.ts';
import { serializeProtectedBranch } from '../http/serializers/protected-branches.ts';
import { BranchesService } from '../services/branches.ts';
import { ensureLevel } from '../services/protected-branches.ts';

interface ProjectPath {
  id: string;
}

interface RulePath extends ProjectPath {
  name: string;
}

/** `/projects/:id/protected_branches[...]`: Maintainer+ on every call, like GitLab. */
export function protectedBranchesRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const branches = new BranchesService(context);
  const rules = context.protectedBranches;
  const { externalUrl } = context.config;
  return async (api) => {
    const base = '/projects/:id/protected_branches';

    api.get<{ Params: ProjectPath }>(base, async (request, reply) => {
      const page = pageRequest(paramsOf(request));
      const target = await branches.forMaintainer(request.params.id, requireActor(request));
      const all = await rules.list(target.project);
      setPaginationHeaders(request, reply, externalUrl, page, { total: all.length });
      return slicePage(all, page).map(serializeProtectedBranch);
    });

    api.get<{ Params: RulePath }>(`${base}/:name`, async (request) => {
      const target = await branches.forMaintainer(request.params.id, requireActor(request));
      return serializeProtectedBranch(await rules.find(target.project, request.params.name));
    });

    api.post<{ Params: ProjectPath }>(base, async (request, reply) => {
      const params = paramsOf(request);
      const name = params.requiredString('name');
      const push = ensureLevel(params.int('push_access_level') ?? 40, 'push_access_level');
      const merge = ensureLevel(params.int('merge_access_level') ?? 40, 'merge_access_level');
      const allowForcePush = params.bool('allow_force_push') ?? false;
      const target = await branches.forMaintainer(request.params.id, requireActor(request));
      return reply.code(201).send(serializeProtectedBranch(await rules.create(target.project, name, push, merge, allowForcePush)));
    });

    api.delete<{ Params: RulePath }>(`${base}/:name`, async (request, reply) => {
      const target = await branches.forMaintainer(request.params.id, requireActor(request));
      if (!(await rules.remove(target.project, request.params.name))) throw new GantryError('GANTRY_E_PROTECTED_BRANCH_NOT_FOUND');
      return reply.code(204).send();
    });
  };
}
