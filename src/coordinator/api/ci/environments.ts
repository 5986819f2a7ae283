import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { ENVIRONMENT_TIERS } from '../../../ci/environment-tier.ts';
import { invalidParam, invalidParams } from '../../../shared/errors.ts';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeEnvironment } from '../../http/serializers/ci/environments.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const PROJECT_ID = { id: Param.string({ description: 'Project id or URL-encoded full path' }) };
const ProjectPath = Type.Object(PROJECT_ID);
const EnvironmentPath = Type.Object({ ...PROJECT_ID, environment_id: Param.integer({ description: 'The environment id' }) });

const ListQuery = Type.Object({
  name: Type.Optional(Param.string({ description: 'Only the environment of this name' })),
  search: Type.Optional(Param.string({ description: 'Only environments whose name contains this' })),
  // GitLab's Environment.valid_states: `stopping` is one (no environment of ours is ever in it).
  states: Type.Optional(Param.oneOf(['available', 'stopping', 'stopped'], { description: 'Only environments in this state' })),
  ...PAGINATION,
});
const TIER = { tier: Type.Optional(Param.oneOf([...ENVIRONMENT_TIERS], { description: 'production, staging, testing, development or other (default: guessed from the name)' })) };
const SLUG = { slug: Type.Optional(Param.string({ description: 'Not accepted: the slug is generated from the name' })) };
const CreateBody = Type.Object({
  name: Param.string({ minLength: 1, description: "Letters, digits, spaces, '-', '_', '/', '$', '{', '}' and '.'" }),
  external_url: Type.Optional(Param.nullable(Param.string({ description: 'An http(s) URL where the environment is reached' }))),
  ...TIER,
  ...SLUG,
});
const UpdateBody = Type.Object({
  name: Type.Optional(Param.string({ description: 'The new name (the slug stays)' })),
  external_url: Type.Optional(Param.nullable(Param.string({ description: 'An http(s) URL; null clears it' }))),
  ...TIER,
  ...SLUG,
});

/** GitLab's `optional :slug, absence: {...}`: the slug is generated, never given. */
function refuseSlug(body: { slug?: string }): void {
  if (body.slug !== undefined) throw invalidParam('slug', 'is automatically generated and cannot be changed');
}

const tags = ['environments'];

/** `/projects/:id/environments[/:environment_id][/stop]`: Reporters read; Developers create, update, stop and delete. */
export function environmentsRoutes({ environments }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/environments';
    const one = `${base}/:environment_id`;

    api.get(base, { schema: { summary: "List a project's environments", tags, params: ProjectPath, querystring: ListQuery } }, async (request, reply) => {
      const { query } = request;
      // GitLab's `mutually_exclusive :name, :search, message: 'cannot be used together'`.
      if (query.name !== undefined && query.search !== undefined) throw invalidParams([{ name: 'name, search', problem: 'cannot be used together' }]);
      const page = pageOf(query);
      const filter = { name: query.name, search: query.search || undefined, states: query.states === undefined ? undefined : query.states === 'stopping' ? [] : [query.states] };
      const { items, total } = await environments.list(request.params.id, requireActor(request), filter, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((view) => serializeEnvironment(view, edge.externalUrl));
    });

    api.get(one, { schema: { summary: 'Get an environment with its last deployment', tags, params: EnvironmentPath } }, async (request) => {
      const { id, environment_id: environmentId } = request.params;
      return serializeEnvironment(await environments.get(id, requireActor(request), environmentId), edge.externalUrl);
    });

    api.post(base, { schema: { summary: 'Create an environment', tags, params: ProjectPath, body: CreateBody } }, async (request, reply) => {
      refuseSlug(request.body);
      const input = { name: request.body.name, externalUrl: request.body.external_url, tier: request.body.tier };
      return reply.code(201).send(serializeEnvironment(await environments.create(request.params.id, requireActor(request), input), edge.externalUrl));
    });

    api.put(one, { schema: { summary: 'Rename an environment or change its external URL or tier', tags, params: EnvironmentPath, body: UpdateBody } }, async (request) => {
      refuseSlug(request.body);
      const { id, environment_id: environmentId } = request.params;
      const input = { name: request.body.name, externalUrl: request.body.external_url, tier: request.body.tier };
      return serializeEnvironment(await environments.update(id, requireActor(request), environmentId, input), edge.externalUrl);
    });

    api.delete(one, { schema: { summary: 'Delete an environment', tags, params: EnvironmentPath } }, async (request, reply) => {
      const { id, environment_id: environmentId } = request.params;
      await environments.remove(id, requireActor(request), environmentId);
      return reply.code(204).send();
    });

    api.post(`${one}/stop`, { schema: { summary: 'Stop an environment', tags, params: EnvironmentPath } }, async (request, reply) => {
      const { id, environment_id: environmentId } = request.params;
      return reply.code(200).send(serializeEnvironment(await environments.stop(id, requireActor(request), environmentId), edge.externalUrl));
    });
  };
}
