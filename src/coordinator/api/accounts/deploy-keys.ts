import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { GantryError } from '../../../shared/errors.ts';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { parseRecordId } from '../../../shared/record-ids.ts';
import { serializeDeployKey, serializeProjectDeployKey } from '../../http/serializers/accounts/deploy-keys.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { PROJECT_ID, ProjectPath } from '../repository/params.ts';

// A string: a key id that is not a positive integer answers 404 like an unknown key, not 400.
const KeyPath = Type.Object({ ...PROJECT_ID, key_id: Param.string({ description: 'Deploy key id' }) });
const PageQuery = Type.Object(PAGINATION);
const AddBody = Type.Object({
  title: Param.string({ minLength: 1, description: 'Title of the key' }),
  key: Param.string({ minLength: 1, description: 'The SSH public key' }),
  can_push: Type.Optional(Param.boolean({ description: 'Whether the key may push (default false)' })),
});
const UpdateBody = Type.Object({
  title: Type.Optional(Param.string({ description: 'Title of the key' })),
  can_push: Type.Optional(Param.boolean({ description: 'Whether the key may push' })),
});

/** A key id, else 404 like an unknown key. */
function keyId(raw: string): number {
  const id = parseRecordId(raw);
  if (id === undefined || id === null) throw new GantryError('GANTRY_E_DEPLOY_KEY_NOT_FOUND');
  return id;
}

const tags = ['deploy keys'];

/** `/deploy_keys` (admin) and `/projects/:id/deploy_keys[...]` (Maintainer+). */
export function deployKeysRoutes({ deployKeys: keys }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/deploy_keys';

    api.get('/deploy_keys', { schema: { summary: 'List every deploy key of the instance (administrators)', tags, querystring: PageQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await keys.listAll(requireActor(request), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map(serializeDeployKey);
    });

    api.get(base, { schema: { summary: "List a project's deploy keys", tags, params: ProjectPath, querystring: PageQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await keys.list(request.params.id, requireActor(request), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map(serializeProjectDeployKey);
    });

    api.get(`${base}/:key_id`, { schema: { summary: 'Get a deploy key of a project', tags, params: KeyPath } }, async (request) => {
      return serializeProjectDeployKey(await keys.get(request.params.id, requireActor(request), keyId(request.params.key_id)));
    });

    api.post(base, { schema: { summary: 'Add a deploy key to a project', tags, params: ProjectPath, body: AddBody } }, async (request, reply) => {
      const actor = requireActor(request);
      const input = { title: request.body.title, key: request.body.key, canPush: request.body.can_push ?? false };
      return reply.code(201).send(serializeProjectDeployKey(await keys.add(request.params.id, actor, input)));
    });

    api.put(`${base}/:key_id`, { schema: { summary: 'Update a deploy key of a project', tags, params: KeyPath, body: UpdateBody } }, async (request) => {
      const changes = { title: request.body.title, canPush: request.body.can_push };
      return serializeProjectDeployKey(await keys.update(request.params.id, requireActor(request), keyId(request.params.key_id), changes));
    });

    api.delete(`${base}/:key_id`, { schema: { summary: 'Remove a deploy key from a project', tags, params: KeyPath } }, async (request, reply) => {
      await keys.remove(request.params.id, requireActor(request), keyId(request.params.key_id));
      return reply.code(204).send();
    });

    api.post(`${base}/:key_id/enable`, { schema: { summary: 'Enable a deploy key another project uses', tags, params: KeyPath } }, async (request, reply) => {
      const actor = requireActor(request);
      return reply.code(201).send(serializeProjectDeployKey(await keys.enable(request.params.id, actor, keyId(request.params.key_id))));
    });
  };
}
