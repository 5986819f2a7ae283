import type { FastifyPluginAsync } from 'fastify';
import type { CoordinatorContext } from '../context.ts';
import { requireActor } from '../http/auth.ts';
import { messageAnswers } from '../http/error-responses.ts';
import { pageRequest, setPaginationHeaders, slicePage } from '../http/pagination.ts';
import { paramsOf } from '../http/request-params.ts';
import { serializeRelease, serializeTag } from '../http/serializers/tags.ts';
import type { ReadableRepository } from '../services/repository/access.ts';
import { TagsService } from '../services/tags.ts';

interface ProjectPath {
  id: string;
}

interface TagPath extends ProjectPath {
  tag_name: string;
}

/** The legacy tag release routes say what is missing in words: `{"message":"Tag does not exist"}`. */
const releaseOptions = { config: { errorAnswers: messageAnswers(404, ['GANTRY_E_TAG_NOT_FOUND', 'GANTRY_E_RELEASE_NOT_FOUND']) } };

/** `/projects/:id/repository/tags[...]` and `.../tags/:tag_name/release`. */
export function tagsRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const tags = new TagsService(context);
  const { externalUrl } = context.config;
  const urls = (target: ReadableRepository) => ({ externalUrl, projectFullPath: target.fullPath });
  return async (api) => {
    const base = '/projects/:id/repository/tags';

    api.get<{ Params: ProjectPath }>(base, async (request, reply) => {
      const params = paramsOf(request);
      const page = pageRequest(params);
      const query = {
        orderBy: params.oneOf('order_by', ['name', 'updated'] as const) ?? 'updated',
        sort: params.oneOf('sort', ['asc', 'desc'] as const) ?? 'desc',
        search: params.string('search') || undefined,
      };
      const target = await tags.readable(request.params.id, request.actor);
      const views = await tags.list(target, query);
      setPaginationHeaders(request, reply, externalUrl, page, { total: views.length });
      return slicePage(views, page).map((view) => serializeTag(view, urls(target)));
    });

    api.get<{ Params: TagPath }>(`${base}/:tag_name`, async (request) => {
      const target = await tags.readable(request.params.id, request.actor);
      return serializeTag(await tags.find(target, request.params.tag_name), urls(target));
    });

    api.post<{ Params: ProjectPath }>(base, { config: { errorAnswers: messageAnswers(405, ['GANTRY_E_REF_NAME_INVALID', 'GANTRY_E_REF_NOT_FOUND', 'GANTRY_E_TAG_PROTECTED']) } }, async (request, reply) => {
      const actor = requireActor(request);
      const params = paramsOf(request);
      const input = {
        name: params.requiredString('tag_name'),
        ref: params.requiredString('ref'),
        message: params.string('message') || undefined,
        releaseDescription: params.string('release_description') || undefined,
      };
      const { target, view } = await tags.create(request.params.id, actor, input);
      return reply.code(201).send(serializeTag(view, urls(target)));
    });

    api.delete<{ Params: TagPath }>(`${base}/:tag_name`, async (request, reply) => {
      await tags.delete(request.params.id, requireActor(request), request.params.tag_name);
      return reply.code(204).send();
    });

    api.post<{ Params: TagPath }>(`${base}/:tag_name/release`, releaseOptions, async (request, reply) => {
      const actor = requireActor(request);
      const description = paramsOf(request).requiredString('description');
      const release = await tags.createRelease(request.params.id, actor, request.params.tag_name, description);
      return reply.code(201).send(serializeRelease(release));
    });

    api.put<{ Params: TagPath }>(`${base}/:tag_name/release`, releaseOptions, async (request) => {
      const actor = requireActor(request);
      const description = paramsOf(request).requiredString('description');
      return serializeRelease(await tags.updateRelease(request.params.id, actor, request.params.tag_name, description));
    });
  };
}
