import type { FastifyPluginAsync } from 'fastify';
import type { CoordinatorContext } from '../context.ts';
import { requireActor } from '../http/auth.ts';
import { messageAnswers } from '../http/error-responses.ts';
import { pageRequest, setPaginationHeaders } from '../http/pagination.ts';
import { paramsOf } from '../http/request-params.ts';
import { serializeBranch } from '../http/serializers/branches.ts';
import { BranchesService } from '../services/branches.ts';
import type { ReadableRepository } from '../services/repository/access.ts';

interface ProjectPath {
  id: string;
}

interface BranchPath extends ProjectPath {
  branch: string;
}

/** `/projects/:id/repository/branches[...]` and `/projects/:id/repository/merged_branches`. */
export function branchesRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const branches = new BranchesService(context);
  const { externalUrl } = context.config;
  const urls = (target: ReadableRepository) => ({ externalUrl, projectFullPath: target.fullPath });
  return async (api) => {
    const base = '/projects/:id/repository/branches';

    api.get<{ Params: ProjectPath }>(base, async (request, reply) => {
      const params = paramsOf(request);
      const page = pageRequest(params);
      const target = await branches.readable(request.params.id, request.actor);
      const { items, total } = await branches.list(target, request.actor, params.string('search') || undefined, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      return items.map((view) => serializeBranch(view, urls(target)));
    });

    api.get<{ Params: BranchPath }>(`${base}/:branch`, async (request) => {
      const target = await branches.readable(request.params.id, request.actor);
      return serializeBranch(await branches.find(target, request.actor, request.params.branch), urls(target));
    });

    api.post<{ Params: ProjectPath }>(base, { config: { errorAnswers: messageAnswers(400, ['GANTRY_E_REF_NOT_FOUND']) } }, async (request, reply) => {
      const actor = requireActor(request);
      const params = paramsOf(request);
      const name = params.requiredString('branch');
      const ref = params.requiredString('ref');
      const { target, view } = await branches.create(request.params.id, actor, name, ref);
      return reply.code(201).send(serializeBranch(view, urls(target)));
    });

    api.delete<{ Params: BranchPath }>(`${base}/:branch`, { config: { errorAnswers: messageAnswers(405, ['GANTRY_E_BRANCH_PROTECTED']) } }, async (request, reply) => {
      await branches.delete(request.params.id, requireActor(request), request.params.branch);
      return reply.code(204).send();
    });

    api.delete<{ Params: ProjectPath }>('/projects/:id/repository/merged_branches', async (request, reply) => {
      await branches.deleteMerged(request.params.id, requireActor(request));
      return reply.code(202).send({ message: '202 Accepted' });
    });

    api.put<{ Params: BranchPath }>(`${base}/:branch/protect`, async (request) => {
      const params = paramsOf(request);
      const flags = { developersCanPush: params.bool('developers_can_push') ?? false, developersCanMerge: params.bool('developers_can_merge') ?? false };
      const { target, view } = await branches.protect(request.params.id, requireActor(request), request.params.branch, flags);
      return serializeBranch(view, urls(target));
    });

    api.put<{ Params: BranchPath }>(`${base}/:branch/unprotect`, async (request) => {
      const { target, view } = await branches.unprotect(request.params.id, requireActor(request), request.params.branch);
      return serializeBranch(view, urls(target));
    });
  };
}
