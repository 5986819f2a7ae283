import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { messageAnswers } from '../../http/error-responses.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeRelease, serializeTag } from '../../http/serializers/repository/tags.ts';
import type { ReadableRepository } from '../../services/repository/access.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { PROJECT_ID, ProjectPath } from './params.ts';

const TagPath = Type.Object({ ...PROJECT_ID, tag_name: Param.string({ description: 'Tag name (URL-encoded)' }) });
const ListQuery = Type.Object({
  order_by: Type.Optional(Param.oneOf(['name', 'updated'], { description: 'Order by name or by commit date (default updated)' })),
  sort: Type.Optional(Param.oneOf(['asc', 'desc'], { description: 'Sort direction (default desc)' })),
  search: Type.Optional(Param.string({ description: 'Part of the name; ^ anchors the start, $ the end' })),
  ...PAGINATION,
});
const CreateBody = Type.Object({
  tag_name: Param.string({ minLength: 1, description: 'Name of the new tag' }),
  ref: Param.string({ minLength: 1, description: 'Branch, tag or commit to tag' }),
  message: Type.Optional(Param.string({ description: 'Message of an annotated tag' })),
  release_description: Type.Optional(Param.string({ description: 'Release notes (deprecated)' })),
});
const ReleaseBody = Type.Object({ description: Param.string({ minLength: 1, description: 'Release notes' }) });

/** The legacy tag release routes say what is missing in words: `{"message":"Tag does not exist"}`. */
const releaseConfig = { errorAnswers: messageAnswers(404, ['GANTRY_E_TAG_NOT_FOUND', 'GANTRY_E_RELEASE_NOT_FOUND']) };
const createConfig = { errorAnswers: messageAnswers(405, ['GANTRY_E_REF_NAME_INVALID', 'GANTRY_E_REF_NOT_FOUND', 'GANTRY_E_TAG_PROTECTED']) };

const tags = ['tags'];

/** `/projects/:id/repository/tags[...]` and `.../tags/:tag_name/release`. */
export function tagsRoutes({ tags: service }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const urls = (target: ReadableRepository) => ({ externalUrl: edge.externalUrl, projectFullPath: target.fullPath });
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/repository/tags';

    api.get(base, { schema: { summary: 'List repository tags', tags, params: ProjectPath, querystring: ListQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const query = { orderBy: request.query.order_by ?? 'updated', sort: request.query.sort ?? 'desc', search: request.query.search || undefined };
      const { target, items, total } = await service.list(request.params.id, request.actor, query, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((view) => serializeTag(view, urls(target)));
    });

    api.get(`${base}/:tag_name`, { schema: { summary: 'Get a tag', tags, params: TagPath } }, async (request) => {
      const { target, view } = await service.get(request.params.id, request.actor, request.params.tag_name);
      return serializeTag(view, urls(target));
    });

    api.post(base, { schema: { summary: 'Create a tag', tags, params: ProjectPath, body: CreateBody }, config: createConfig }, async (request, reply) => {
      const actor = requireActor(request);
      const { body } = request;
      const input = { name: body.tag_name, ref: body.ref, message: body.message || undefined, releaseDescription: body.release_description || undefined };
      const { target, view } = await service.create(request.params.id, actor, input);
      return reply.code(201).send(serializeTag(view, urls(target)));
    });

    api.delete(`${base}/:tag_name`, { schema: { summary: 'Delete a tag', tags, params: TagPath } }, async (request, reply) => {
      await service.delete(request.params.id, requireActor(request), request.params.tag_name);
      return reply.code(204).send();
    });

    api.post(`${base}/:tag_name/release`, { schema: { summary: 'Add release notes to a tag (deprecated)', tags, params: TagPath, body: ReleaseBody }, config: releaseConfig }, async (request, reply) => {
      const actor = requireActor(request);
      const release = await service.createRelease(request.params.id, actor, request.params.tag_name, request.body.description);
      return reply.code(201).send(serializeRelease(release));
    });

    api.put(`${base}/:tag_name/release`, { schema: { summary: 'Update the release notes of a tag (deprecated)', tags, params: TagPath, body: ReleaseBody }, config: releaseConfig }, async (request) => {
      const actor = requireActor(request);
      return serializeRelease(await service.updateRelease(request.params.id, actor, request.params.tag_name, request.body.description));
    });
  };
}
