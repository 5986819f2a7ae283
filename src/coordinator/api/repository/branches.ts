import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { messageAnswers } from '../../http/error-responses.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeBranch } from '../../http/serializers/repository/branches.ts';
import type { BranchResult } from '../../services/repository/branches.ts';
import type { ReadableRepository } from '../../services/repository/access.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { PROJECT_ID, ProjectPath } from './params.ts';

const BranchPath = Type.Object({ ...PROJECT_ID, branch: Param.string({ description: 'Branch name (URL-encoded)' }) });
const ListQuery = Type.Object({ search: Type.Optional(Param.string({ description: 'Part of the name; ^ anchors the start, $ the end' })), ...PAGINATION });
const CreateBody = Type.Object({
  branch: Param.string({ minLength: 1, description: 'Name of the new branch' }),
  ref: Param.string({ minLength: 1, description: 'Branch, tag or commit to start from' }),
});
const ProtectBody = Type.Object({
  developers_can_push: Type.Optional(Param.boolean({ description: 'Developers may push (default: Maintainers only)' })),
  developers_can_merge: Type.Optional(Param.boolean({ description: 'Developers may merge (default: Maintainers only)' })),
});

const tags = ['branches'];

/** `/projects/:id/repository/branches[...]` and `/projects/:id/repository/merged_branches`. */
export function branchesRoutes({ branches }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const urls = (target: ReadableRepository) => ({ externalUrl: edge.externalUrl, projectFullPath: target.fullPath });
  const present = ({ target, view }: BranchResult) => serializeBranch(view, urls(target));
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/repository/branches';

    api.get(base, { schema: { summary: 'List repository branches', tags, params: ProjectPath, querystring: ListQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { target, items, total } = await branches.list(request.params.id, request.actor, request.query.search || undefined, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((view) => serializeBranch(view, urls(target)));
    });

    api.get(`${base}/:branch`, { schema: { summary: 'Get a branch', tags, params: BranchPath } }, async (request) => {
      return present(await branches.get(request.params.id, request.actor, request.params.branch));
    });

    const createConfig = { errorAnswers: messageAnswers(400, ['GANTRY_E_REF_NOT_FOUND']) };
    api.post(base, { schema: { summary: 'Create a branch', tags, params: ProjectPath, body: CreateBody }, config: createConfig }, async (request, reply) => {
      const actor = requireActor(request);
      return reply.code(201).send(present(await branches.create(request.params.id, actor, request.body.branch, request.body.ref)));
    });

    const deleteConfig = { errorAnswers: messageAnswers(405, ['GANTRY_E_BRANCH_PROTECTED']) };
    api.delete(`${base}/:branch`, { schema: { summary: 'Delete a branch', tags, params: BranchPath }, config: deleteConfig }, async (request, reply) => {
      await branches.delete(request.params.id, requireActor(request), request.params.branch);
      return reply.code(204).send();
    });

    api.delete('/projects/:id/repository/merged_branches', { schema: { summary: 'Delete the branches merged into the default branch', tags, params: ProjectPath } }, async (request, reply) => {
      await branches.deleteMerged(request.params.id, requireActor(request));
      return reply.code(202).send({ message: '202 Accepted' });
    });

    api.put(`${base}/:branch/protect`, { schema: { summary: 'Protect a branch (deprecated; see protected_branches)', tags, params: BranchPath, body: ProtectBody } }, async (request) => {
      const flags = { developersCanPush: request.body.developers_can_push ?? false, developersCanMerge: request.body.developers_can_merge ?? false };
      return present(await branches.protect(request.params.id, requireActor(request), request.params.branch, flags));
    });

    api.put(`${base}/:branch/unprotect`, { schema: { summary: 'Unprotect a branch (deprecated; see protected_branches)', tags, params: BranchPath } }, async (request) => {
      return present(await branches.unprotect(request.params.id, requireActor(request), request.params.branch));
    });
  };
}
