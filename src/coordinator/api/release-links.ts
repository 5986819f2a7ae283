import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { invalidParam } from '../../shared/errors.ts';
import { RELEASE_LINK_TYPES } from '../../storage/types-repository.ts';
import type { CoordinatorContext } from '../context.ts';
import { requireActor } from '../http/auth.ts';
import { ERROR_ANSWERS } from '../http/error-responses.ts';
import { pageRequest, setPaginationHeaders, slicePage } from '../http/pagination.ts';
import { Params } from '../http/params.ts';
import type { ParamMap, ParamValue } from '../http/querystring.ts';
import { paramsOf } from '../http/request-params.ts';
import { serializeReleaseLink } from '../http/serializers/releases.ts';
import { ReleaseLinksService, type LinkResult, type ReleaseLinkInput } from '../services/release-links.ts';
import { requireAtLeastOne } from './at-least-one.ts';

interface ReleasePath {
  id: string;
  tag_name: string;
}

interface LinkPath extends ReleasePath {
  link_id: string;
}

/** The fields of one link; `name` spells how errors name them (`url`, or `assets[links][0][url]`). */
function linkInput(params: Params, name: (field: string) => string = (field) => field): ReleaseLinkInput {
  const filepath = params.string(name('filepath'));
  return {
    name: params.string(name('name')),
    url: params.string(name('url')),
    filepath: filepath === undefined ? undefined : filepath === '' ? null : filepath,
    linkType: params.oneOf(name('link_type'), RELEASE_LINK_TYPES),
  };
}

const isMap = (value: ParamValue | undefined): value is ParamMap => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `assets[links][]` of a new release (JSON or bracketed form fields). */
export function parseAssetLinks(params: Params): ReleaseLinkInput[] {
  const assets = params.raw('assets');
  if (assets === undefined || assets === null) return [];
  if (!isMap(assets)) throw invalidParam('assets', 'is invalid');
  const links = assets.links;
  if (links === undefined || links === null) return [];
  if (!Array.isArray(links)) throw invalidParam('assets[links]', 'is invalid');
  return links.map((item, index) => {
    const prefix = `assets[links][${index}]`;
    if (!isMap(item)) throw invalidParam(prefix, 'is invalid');
    const fields = Object.create(null) as ParamMap;
    for (const [key, value] of Object.entries(item)) fields[`${prefix}[${key}]`] = value;
    return linkInput(new Params(fields), (field) => `${prefix}[${field}]`);
  });
}

/** A missing release answers like a missing link here: `404 Not found`. */
const linkOptions = { config: { errorAnswers: { GANTRY_E_RELEASE_NOT_FOUND: ERROR_ANSWERS.GANTRY_E_RELEASE_LINK_NOT_FOUND } } };

/** `/projects/:id/releases/:tag_name/assets/links[/:link_id]`. */
export function releaseLinksRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const links = new ReleaseLinksService(context);
  const { externalUrl } = context.config;
  const present = (request: FastifyRequest<{ Params: ReleasePath }>, { target, link }: LinkResult) =>
    serializeReleaseLink(link, request.params.tag_name, { externalUrl, projectFullPath: target.fullPath });
  const linkId = (request: FastifyRequest) => paramsOf(request).requiredInt('link_id', { min: 1 });
  return async (api) => {
    const base = '/projects/:id/releases/:tag_name/assets/links';

    api.get<{ Params: ReleasePath }>(base, linkOptions, async (request, reply) => {
      const page = pageRequest(paramsOf(request));
      const { target, links: all } = await links.list(request.params.id, request.actor, request.params.tag_name);
      setPaginationHeaders(request, reply, externalUrl, page, { total: all.length });
      return slicePage(all, page).map((link) => present(request, { target, link }));
    });

    api.get<{ Params: LinkPath }>(`${base}/:link_id`, linkOptions, async (request) => {
      return present(request, await links.get(request.params.id, request.actor, request.params.tag_name, linkId(request)));
    });

    api.post<{ Params: ReleasePath }>(base, linkOptions, async (request, reply) => {
      const created = await links.create(request.params.id, requireActor(request), request.params.tag_name, linkInput(paramsOf(request)));
      return reply.code(201).send(present(request, created));
    });

    api.put<{ Params: LinkPath }>(`${base}/:link_id`, linkOptions, async (request) => {
      const actor = requireActor(request);
      const params = paramsOf(request);
      requireAtLeastOne(params, ['name', 'url']);
      return present(request, await links.update(request.params.id, actor, request.params.tag_name, linkId(request), linkInput(params)));
    });

    api.delete<{ Params: LinkPath }>(`${base}/:link_id`, linkOptions, async (request) => {
      return present(request, await links.remove(request.params.id, requireActor(request), request.params.tag_name, linkId(request)));
    });
  };
}
