import type { FastifyPluginAsync } from 'fastify';
import type { CoordinatorContext } from '../context.ts';
import { requireActor } from '../http/auth.ts';
import { messageAnswers } from '../http/error-responses.ts';
import { pageRequest, setPaginationHeaders, slicePage } from '../http/pagination.ts';
import type { Params } from '../http/params.ts';
import { paramsOf } from '../http/request-params.ts';
import { serializeReleaseDetail } from '../http/serializers/releases.ts';
import type { ReadableRepository } from '../services/repository/access.ts';
import { ReleasesService, type ReleaseInput } from '../services/releases.ts';
import { parseAssetLinks } from './release-links.ts';

interface ProjectPath {
  id: string;
}

interface ReleasePath extends ProjectPath {
  tag_name: string;
}

/** `/projects/:id/releases[/:tag_name]`: the Releases API. */
export function releasesRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const releases = new ReleasesService(context);
  const { externalUrl } = context.config;
  const urls = (target: ReadableRepository) => ({ externalUrl, projectFullPath: target.fullPath });
  return async (api) => {
    const base = '/projects/:id/releases';

    api.get<{ Params: ProjectPath }>(base, async (request, reply) => {
      const params = paramsOf(request);
      const page = pageRequest(params);
      const query = {
        orderBy: params.oneOf('order_by', ['released_at', 'created_at'] as const) ?? 'released_at',
        sort: params.oneOf('sort', ['asc', 'desc'] as const) ?? 'desc',
      };
      const target = await releases.readable(request.params.id, request.actor);
      const views = await releases.list(target, query);
      setPaginationHeaders(request, reply, externalUrl, page, { total: views.length });
      return slicePage(views, page).map((view) => serializeReleaseDetail(view, urls(target)));
    });

    api.get<{ Params: ReleasePath }>(`${base}/:tag_name`, async (request) => {
      const target = await releases.readable(request.params.id, request.actor);
      return serializeReleaseDetail(await releases.find(target, request.params.tag_name), urls(target));
    });

    api.post<{ Params: ProjectPath }>(base, async (request, reply) => {
      const actor = requireActor(request);
      const params = paramsOf(request);
      const tagName = params.requiredString('tag_name');
      const ref = params.string('ref') || undefined;
      const { target, view } = await releases.create(request.params.id, actor, tagName, ref, { ...releaseInput(params), links: parseAssetLinks(params) });
      return reply.code(201).send(serializeReleaseDetail(view, urls(target)));
    });

    api.put<{ Params: ReleasePath }>(`${base}/:tag_name`, { config: { errorAnswers: messageAnswers(400, ['GANTRY_E_AT_LEAST_ONE_PARAM_REQUIRED']) } }, async (request) => {
      const actor = requireActor(request);
      const { target, view } = await releases.update(request.params.id, actor, request.params.tag_name, releaseInput(paramsOf(request)));
      return serializeReleaseDetail(view, urls(target));
    });

    api.delete<{ Params: ReleasePath }>(`${base}/:tag_name`, async (request) => {
      const { target, view } = await releases.remove(request.params.id, requireActor(request), request.params.tag_name);
      return serializeReleaseDetail(view, urls(target));
    });
  };
}

function releaseInput(params: Params): ReleaseInput {
  return {
    name: params.string('name'),
    description: params.string('description'),
    releasedAt: params.dateTime('released_at'),
    milestones: params.stringArray('milestones'),
  };
}
