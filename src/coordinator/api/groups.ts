import type { FastifyPluginAsync } from 'fastify';
import { VISIBILITIES } from '../../storage/types.ts';
import type { CoordinatorContext } from '../context.ts';
import { pageRequest, setPaginationHeaders } from '../http/pagination.ts';
import type { Params } from '../http/params.ts';
import { paramsOf } from '../http/request-params.ts';
import { RepositoryGroupStatistics } from '../services/group-statistics.ts';
import { GroupsService, type GroupListQuery, type GroupProjectsQuery } from '../services/groups.ts';
import { registerGroupChangeRoutes } from './groups-changes.ts';
import { serializeProject } from '../http/serializers/projects.ts';
import { buildProjectViews } from '../wiring.ts';

const PROJECT_ORDER = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at'] as const;
const SORT = ['asc', 'desc'] as const;

/** `/groups`: listing, details, subgroups and projects of groups, plus the changes in groups-changes.ts. */
export function groupsRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const projectViews = buildProjectViews(context);
  const groups = new GroupsService(context, async (projects, actor, options) => (await projectViews.many(projects, actor, options)).map((view) => serializeProject(view, context.config.externalUrl)), new RepositoryGroupStatistics(context));
  return async (api) => {
    api.get('/groups', async (request, reply) => {
      const params = paramsOf(request);
      const page = pageRequest(params);
      const { items, total } = await groups.list(request.actor, groupListQuery(params), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, context.config.externalUrl, page, { total });
      return items;
    });

    api.get<{ Params: { id: string } }>('/groups/:id', async (request) => {
      const group = await groups.readable(request.params.id, request.actor);
      return groups.details(group, request.actor);
    });

    api.get<{ Params: { id: string } }>('/groups/:id/subgroups', async (request, reply) => {
      const params = paramsOf(request);
      const page = pageRequest(params);
      const query = groupListQuery(params);
      const parent = await groups.readable(request.params.id, request.actor);
      const { items, total } = await groups.list(request.actor, query, { offset: page.offset, limit: page.perPage }, parent);
      setPaginationHeaders(request, reply, context.config.externalUrl, page, { total });
      return items;
    });

    api.get<{ Params: { id: string } }>('/groups/:id/projects', async (request, reply) => {
      const params = paramsOf(request);
      const page = pageRequest(params);
      const query = groupProjectsQuery(params);
      const group = await groups.readable(request.params.id, request.actor);
      const { items, total } = await groups.projects(group, request.actor, query, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, context.config.externalUrl, page, { total });
      return items;
    });

    registerGroupChangeRoutes(api, context, groups);
  };
}

function groupListQuery(params: Params): GroupListQuery {
  return {
    skipGroups: params.intArray('skip_groups'),
    allAvailable: params.bool('all_available'),
    search: params.string('search') || undefined,
    orderBy: params.oneOf('order_by', ['name', 'path'] as const) ?? 'name',
    sort: params.oneOf('sort', SORT) ?? 'asc',
    statistics: params.bool('statistics') ?? false,
    owned: params.bool('owned') ?? false,
    customAttributes: params.hash('custom_attributes'),
  };
}

function groupProjectsQuery(params: Params): GroupProjectsQuery {
  return {
    archived: params.bool('archived'),
    visibility: params.oneOf('visibility', VISIBILITIES),
    orderBy: params.oneOf('order_by', PROJECT_ORDER) ?? 'created_at',
    sort: params.oneOf('sort', SORT) ?? 'desc',
    search: params.string('search') || undefined,
    simple: params.bool('simple') ?? false,
    owned: params.bool('owned') ?? false,
    starred: params.bool('starred') ?? false,
  };
}
