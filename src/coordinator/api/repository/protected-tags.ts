import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeProtectedTag } from '../../http/serializers/repository/protected-branches.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { PageQuery, protectionLevel, RulePath } from './protected-branches.ts';
import { ProjectPath } from './params.ts';

const CreateBody = Type.Object({
  name: Param.string({ minLength: 1, description: 'Tag name or wildcard (`*`)' }),
  create_access_level: Type.Optional(Param.integer({ description: 'Who may create matching tags: 0 (no one), 30 (Developers and Maintainers) or 40 (Maintainers, the default)' })),
});

const tags = ['protected tags'];

/** `/projects/:id/protected_tags[...]`: Maintainer+ on every call, like protected branches. */
export function protectedTagsRoutes({ protectedRefs }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/protected_tags';

    api.get(base, { schema: { summary: 'List protected tag rules', tags, params: ProjectPath, querystring: PageQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await protectedRefs.listTagRules(request.params.id, requireActor(request), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map(serializeProtectedTag);
    });

    api.get(`${base}/:name`, { schema: { summary: 'Get a protected tag rule', tags, params: RulePath } }, async (request) => {
      return serializeProtectedTag(await protectedRefs.tagRule(request.params.id, requireActor(request), request.params.name));
    });

    api.post(base, { schema: { summary: 'Protect tags', tags, params: ProjectPath, body: CreateBody } }, async (request, reply) => {
      const level = protectionLevel(request.body.create_access_level, 'create_access_level');
      return reply.code(201).send(serializeProtectedTag(await protectedRefs.protectTag(request.params.id, requireActor(request), request.body.name, level)));
    });

    api.delete(`${base}/:name`, { schema: { summary: 'Remove a protected tag rule', tags, params: RulePath } }, async (request, reply) => {
      await protectedRefs.unprotectTag(request.params.id, requireActor(request), request.params.name);
      return reply.code(204).send();
    });
  };
}
