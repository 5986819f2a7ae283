import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type, type Static } from '#deps/typebox';
import { VISIBILITIES, type AccessLevel } from '../../../storage/types.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeGroupListItem } from '../../http/serializers/namespaces/groups.ts';
import { serializeProject } from '../../http/serializers/namespaces/projects.ts';
import type { GroupListQuery, GroupProjectsQuery } from '../../services/namespaces/groups.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { groupDetailsRenderer } from './groups-details.ts';
import { ACCESS_LEVEL_VALUES, TOPIC, topicNames } from './projects-schemas.ts';

const PROJECT_ORDER = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at'] as const;
const SORT = ['asc', 'desc'] as const;

export const GroupId = Type.Object({ id: Param.string({ description: 'Group id or URL-encoded full path' }) });

export const GroupListParams = Type.Object({
  skip_groups: Type.Optional(Param.integers({ description: 'Leave out these group ids' })),
  all_available: Type.Optional(Param.boolean({ description: 'Also the groups readable without membership (default false; anonymous callers see public groups, administrators every group)' })),
  search: Type.Optional(Param.string({ description: 'Part of the name or path' })),
  order_by: Type.Optional(Param.oneOf(['name', 'path'], { description: 'Default name' })),
  sort: Type.Optional(Param.oneOf(SORT, { description: 'Default asc' })),
  statistics: Type.Optional(Param.boolean({ description: 'Storage figures (administrators)' })),
  owned: Type.Optional(Param.boolean({ description: 'Only groups the caller owns' })),
  min_access_level: Type.Optional(Param.oneOf(ACCESS_LEVEL_VALUES, { description: 'Only groups where the caller is a member with at least this level, and their subgroups' })),
  custom_attributes: Type.Optional(Param.hash({ description: 'Only groups with these custom attributes (administrators)' })),
  ...PAGINATION,
});

const ProjectsQuery = Type.Object({
  archived: Type.Optional(Param.boolean({ description: 'Only archived (true) or unarchived (false) projects' })),
  visibility: Type.Optional(Param.oneOf(VISIBILITIES)),
  order_by: Type.Optional(Param.oneOf(PROJECT_ORDER, { description: 'Default created_at' })),
  sort: Type.Optional(Param.oneOf(SORT, { description: 'Default desc' })),
  search: Type.Optional(Param.string({ description: 'Part of the name or path' })),
  simple: Type.Optional(Param.boolean({ description: 'Only the short project fields' })),
  owned: Type.Optional(Param.boolean({ description: 'Only projects the caller owns' })),
  starred: Type.Optional(Param.boolean({ description: 'Only projects the caller starred' })),
  with_issues_enabled: Type.Optional(Param.boolean({ description: 'Only projects with issues enabled' })),
  with_merge_requests_enabled: Type.Optional(Param.boolean({ description: 'Only projects with merge requests enabled' })),
  with_shared: Type.Optional(Param.boolean({ description: 'Also the projects shared with the group (default true)' })),
  include_subgroups: Type.Optional(Param.boolean({ description: 'Also the projects of its subgroups (default false)' })),
  min_access_level: Type.Optional(Param.oneOf(ACCESS_LEVEL_VALUES, { description: 'Only projects where the caller is a member with at least this level' })),
  topic: TOPIC,
  ...PAGINATION,
});

type ListParams = Static<typeof GroupListParams>;
type ProjectsParams = Static<typeof ProjectsQuery>;

const tags = ['groups'];

/** `/groups`: listing, details, subgroups and projects of groups (changes in groups-changes.ts). */
export function groupsRoutes(services: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const { groups } = services;
  const renderDetails = groupDetailsRenderer(services, edge);
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/groups', { schema: { summary: 'List groups', tags, querystring: GroupListParams } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await groups.list(request.actor, groupListQuery(request.query), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((item) => serializeGroupListItem(item, edge.externalUrl));
    });

    api.get('/groups/:id', { schema: { summary: 'Get a group with its projects', tags, params: GroupId } }, async (request) => {
      return renderDetails(await groups.get(request.params.id, request.actor), request.actor);
    });

    api.get('/groups/:id/subgroups', { schema: { summary: "List a group's subgroups", tags, params: GroupId, querystring: GroupListParams } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await groups.subgroups(request.params.id, request.actor, groupListQuery(request.query), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((item) => serializeGroupListItem(item, edge.externalUrl));
    });

    api.get('/groups/:id/projects', { schema: { summary: "List a group's projects", tags, params: GroupId, querystring: ProjectsQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await groups.projects(request.params.id, request.actor, groupProjectsQuery(request.query), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      const views = await services.projectViews.many(items, request.actor, { simple: request.query.simple ?? false });
      return views.map((view) => serializeProject(view, edge.externalUrl));
    });
  };
}

export function groupListQuery(query: ListParams): GroupListQuery {
  return {
    skipGroups: query.skip_groups,
    allAvailable: query.all_available,
    search: query.search || undefined,
    orderBy: query.order_by ?? 'name',
    sort: query.sort ?? 'asc',
    statistics: query.statistics ?? false,
    owned: query.owned ?? false,
    minAccessLevel: query.min_access_level === undefined ? undefined : (Number(query.min_access_level) as AccessLevel),
    customAttributes: query.custom_attributes,
  };
}

function groupProjectsQuery(query: ProjectsParams): GroupProjectsQuery {
  return {
    archived: query.archived,
    visibility: query.visibility,
    orderBy: query.order_by ?? 'created_at',
    sort: query.sort ?? 'desc',
    search: query.search || undefined,
    owned: query.owned ?? false,
    starred: query.starred ?? false,
    includeSubgroups: query.include_subgroups ?? false,
    withShared: query.with_shared ?? true,
    withIssuesEnabled: query.with_issues_enabled ?? false,
    withMergeRequestsEnabled: query.with_merge_requests_enabled ?? false,
    topics: topicNames(query.topic),
    minAccessLevel: query.min_access_level === undefined ? undefined : (Number(query.min_access_level) as AccessLevel),
  };
}
