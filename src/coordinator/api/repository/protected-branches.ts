import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { invalidParam } from '../../../shared/errors.ts';
import type { ProtectionLevel } from '../../../storage/types-repository.ts';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeProtectedBranch } from '../../http/serializers/repository/protected-branches.ts';
import { isProtectionLevel } from '../../services/repository/protected-branches.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { PROJECT_ID, ProjectPath } from './params.ts';

export const RulePath = Type.Object({ ...PROJECT_ID, name: Param.string({ description: 'Name or wildcard of the rule (URL-encoded)' }) });
export const PageQuery = Type.Object(PAGINATION);
const LEVEL = 'Who may: 0 (no one), 30 (Developers and Maintainers) or 40 (Maintainers, the default)';
const CreateBody = Type.Object({
  name: Param.string({ minLength: 1, description: 'Branch name or wildcard (`*`)' }),
  push_access_level: Type.Optional(Param.integer({ description: `Push: ${LEVEL}` })),
  merge_access_level: Type.Optional(Param.integer({ description: `Merge: ${LEVEL}` })),
  allow_force_push: Type.Optional(Param.boolean({ description: 'Whether those who may push may force push' })),
});

/** A protection level parameter (default Maintainers); other numbers do not have a valid value. */
export function protectionLevel(value: number | undefined, field: string): ProtectionLevel {
  const level = value ?? 40;
  if (!isProtectionLevel(level)) throw invalidParam(field, 'does not have a valid value');
  return level;
}

const tags = ['protected branches'];

/** `/projects/:id/protected_branches[...]`: Maintainer+ on every call, like GitLab. */
export function protectedBranchesRoutes({ protectedRefs }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/protected_branches';

    api.get(base, { schema: { summary: 'List protected branch rules', tags, params: ProjectPath, querystring: PageQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await protectedRefs.listBranchRules(request.params.id, requireActor(request), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map(serializeProtectedBranch);
    });

    api.get(`${base}/:name`, { schema: { summary: 'Get a protected branch rule', tags, params: RulePath } }, async (request) => {
      return serializeProtectedBranch(await protectedRefs.branchRule(request.params.id, requireActor(request), request.params.name));
    });

    api.post(base, { schema: { summary: 'Protect branches', tags, params: ProjectPath, body: CreateBody } }, async (request, reply) => {
      const { body } = request;
      const rule = {
        name: body.name,
        pushAccessLevel: protectionLevel(body.push_access_level, 'push_access_level'),
        mergeAccessLevel: protectionLevel(body.merge_access_level, 'merge_access_level'),
        allowForcePush: body.allow_force_push ?? false,
      };
      return reply.code(201).send(serializeProtectedBranch(await protectedRefs.protectBranch(request.params.id, requireActor(request), rule)));
    });

    api.delete(`${base}/:name`, { schema: { summary: 'Remove a protected branch rule', tags, params: RulePath } }, async (request, reply) => {
      await protectedRefs.unprotectBranch(request.params.id, requireActor(request), request.params.name);
      return reply.code(204).send();
    });
  };
}
