import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type, type Static } from '#deps/typebox';
import { atLeastOneOf } from '../../../shared/errors.ts';
import { RELEASE_LINK_TYPES } from '../../../storage/types-repository.ts';
import { requireActor } from '../../http/auth.ts';
import { ERROR_ANSWERS } from '../../http/error-responses.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeReleaseLink } from '../../http/serializers/repository/releases.ts';
import type { LinkResult, ReleaseLinkInput } from '../../services/repository/release-links.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { PROJECT_ID, readListItem } from './params.ts';

const RELEASE = { ...PROJECT_ID, tag_name: Param.string({ description: 'Tag of the release (URL-encoded)' }) };
const ReleasePath = Type.Object(RELEASE);
const LinkPath = Type.Object({ ...RELEASE, link_id: Param.integer({ minimum: 1, description: 'Link id' }) });

/** The fields of one asset link (also the items of a new release's `assets[links]`). */
export const LinkFields = Type.Object({
  name: Type.Optional(Param.string({ description: 'Name of the link (unique in the release)' })),
  url: Type.Optional(Param.string({ description: 'URL of the asset (http, https or ftp; unique in the release)' })),
  filepath: Type.Optional(Param.string({ description: 'Path of the direct asset URL, such as /binaries/linux-amd64 (empty: none)' })),
  link_type: Type.Optional(Param.oneOf(RELEASE_LINK_TYPES, { description: 'Kind of asset (default other)' })),
});

/** The link fields as the service takes them: an empty filepath clears it. */
export function linkInput(fields: Static<typeof LinkFields>): ReleaseLinkInput {
  const { filepath } = fields;
  return { name: fields.name, url: fields.url, filepath: filepath === undefined ? undefined : filepath === '' ? null : filepath, linkType: fields.link_type };
}

/**
 * `assets[links][]` of a new release (JSON or bracketed form fields), items as they came;
 * each is read by LinkFields and its problems named `assets[links][i][field]`.
 */
export const ASSETS = Type.Object(
  { links: Type.Optional(Type.Array(Type.Unknown(), { description: 'Asset links: {name, url, filepath, link_type}' })) },
  { description: 'Assets of the release' },
);

export function parseAssetLinks(assets: Static<typeof ASSETS> | undefined): ReleaseLinkInput[] {
  return (assets?.links ?? []).map((item, index) => linkInput(readListItem(LinkFields, item, `assets[links][${index}]`)));
}

/** A missing release answers like a missing link here: `404 Not found`. A CI job token signs these routes in, as the releases routes. */
const config = { jobTokenAllowed: true, errorAnswers: { GANTRY_E_RELEASE_NOT_FOUND: ERROR_ANSWERS.GANTRY_E_RELEASE_LINK_NOT_FOUND } };

const PageQuery = Type.Object(PAGINATION);
const tags = ['release links'];

/** `/projects/:id/releases/:tag_name/assets/links[/:link_id]`. */
export function releaseLinksRoutes({ releaseLinks: links }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const present = (tagName: string, { target, link }: LinkResult) => serializeReleaseLink(link, tagName, { externalUrl: edge.externalUrl, projectFullPath: target.fullPath });
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/releases/:tag_name/assets/links';

    api.get(base, { schema: { summary: 'List the asset links of a release', tags, params: ReleasePath, querystring: PageQuery }, config }, async (request, reply) => {
      const page = pageOf(request.query);
      const { tag_name: tagName } = request.params;
      const { target, items, total } = await links.list(request.params.id, request.actor, tagName, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((link) => present(tagName, { target, link }));
    });

    api.get(`${base}/:link_id`, { schema: { summary: 'Get an asset link', tags, params: LinkPath }, config }, async (request) => {
      const { id, tag_name: tagName, link_id: linkId } = request.params;
      return present(tagName, await links.get(id, request.actor, tagName, linkId));
    });

    api.post(base, { schema: { summary: 'Add an asset link to a release', tags, params: ReleasePath, body: LinkFields }, config }, async (request, reply) => {
      const { id, tag_name: tagName } = request.params;
      return reply.code(201).send(present(tagName, await links.create(id, requireActor(request), tagName, linkInput(request.body))));
    });

    api.put(`${base}/:link_id`, { schema: { summary: 'Update an asset link', tags, params: LinkPath, body: LinkFields }, config }, async (request) => {
      const actor = requireActor(request);
      // Grape's at_least_one_of: given counts, whatever the value.
      if (request.body.name === undefined && request.body.url === undefined) throw atLeastOneOf(['name', 'url']);
      const { id, tag_name: tagName, link_id: linkId } = request.params;
      return present(tagName, await links.update(id, actor, tagName, linkId, linkInput(request.body)));
    });

    api.delete(`${base}/:link_id`, { schema: { summary: 'Delete an asset link', tags, params: LinkPath }, config }, async (request) => {
      const { id, tag_name: tagName, link_id: linkId } = request.params;
      return present(tagName, await links.remove(id, requireActor(request), tagName, linkId));
    });
  };
}
