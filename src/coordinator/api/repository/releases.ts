import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type, type Static } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { messageAnswers } from '../../http/error-responses.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeReleaseDetail } from '../../http/serializers/repository/releases.ts';
import type { ReleaseInput, ReleaseResult } from '../../services/repository/releases.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { ASSETS, parseAssetLinks } from './release-links.ts';
import { PROJECT_ID, ProjectPath } from './params.ts';

const ReleasePath = Type.Object({ ...PROJECT_ID, tag_name: Param.string({ description: 'Tag of the release (URL-encoded)' }) });
const ListQuery = Type.Object({
  order_by: Type.Optional(Param.oneOf(['released_at', 'created_at'], { description: 'Order by (default released_at)' })),
  sort: Type.Optional(Param.oneOf(['asc', 'desc'], { description: 'Sort direction (default desc)' })),
  ...PAGINATION,
});
const RELEASE_FIELDS = {
  name: Type.Optional(Param.string({ description: 'Title of the release (default: the tag name)' })),
  description: Type.Optional(Param.string({ description: 'Release notes' })),
  released_at: Type.Optional(Param.dateTime({ description: 'When the release is or was ready (default: now)' })),
  milestones: Type.Optional(Param.strings({ description: "Titles of the project's or its group's milestones the release is for; on an update they replace the release's (`[]`: none)" })),
};
const CreateBody = Type.Object({
  tag_name: Param.string({ minLength: 1, description: 'Tag of the release (created from ref when it does not exist)' }),
  ref: Type.Optional(Param.string({ description: 'Branch or commit to create the tag from' })),
  ...RELEASE_FIELDS,
  assets: Type.Optional(ASSETS),
});
const UpdateBody = Type.Object(RELEASE_FIELDS);

const tags = ['releases'];
/** A CI job token signs these routes in (release-cli creates releases with one), as in GitLab. */
const config = { jobTokenAllowed: true };

/** `/projects/:id/releases[/:tag_name]`: the Releases API. */
export function releasesRoutes({ releases }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const present = ({ target, view }: ReleaseResult) => serializeReleaseDetail(view, { externalUrl: edge.externalUrl, projectFullPath: target.fullPath });
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/releases';

    api.get(base, { schema: { summary: 'List releases', tags, params: ProjectPath, querystring: ListQuery }, config }, async (request, reply) => {
      const page = pageOf(request.query);
      const query = { orderBy: request.query.order_by ?? 'released_at', sort: request.query.sort ?? 'desc' };
      const { target, items, total } = await releases.list(request.params.id, request.actor, query, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((view) => present({ target, view }));
    });

    api.get(`${base}/:tag_name`, { schema: { summary: 'Get a release', tags, params: ReleasePath }, config }, async (request) => {
      return present(await releases.get(request.params.id, request.actor, request.params.tag_name));
    });

    api.post(base, { schema: { summary: 'Create a release', tags, params: ProjectPath, body: CreateBody }, config }, async (request, reply) => {
      const actor = requireActor(request);
      const { body } = request;
      const input = { ...releaseInput(body), links: parseAssetLinks(body.assets) };
      return reply.code(201).send(present(await releases.create(request.params.id, actor, body.tag_name, body.ref || undefined, input)));
    });

    const updateConfig = { ...config, errorAnswers: messageAnswers(400, ['GANTRY_E_AT_LEAST_ONE_PARAM_REQUIRED']) };
    api.put(`${base}/:tag_name`, { schema: { summary: 'Update a release', tags, params: ReleasePath, body: UpdateBody }, config: updateConfig }, async (request) => {
      const actor = requireActor(request);
      return present(await releases.update(request.params.id, actor, request.params.tag_name, releaseInput(request.body)));
    });

    api.delete(`${base}/:tag_name`, { schema: { summary: 'Delete a release (its tag stays)', tags, params: ReleasePath }, config }, async (request) => {
      return present(await releases.remove(request.params.id, requireActor(request), request.params.tag_name));
    });
  };
}

function releaseInput(body: Static<typeof UpdateBody>): ReleaseInput {
  return { name: body.name, description: body.description, releasedAt: body.released_at, milestones: milestoneTitles(body.milestones) };
}

/** GitLab's CommaSeparatedToArray: each item is a comma list too, so `milestones[]=` (one blank item) names none. */
function milestoneTitles(value: readonly string[] | undefined): string[] | undefined {
  return value?.flatMap((item) => item.split(',')).map((title) => title.trim()).filter((title) => title !== '');
}
