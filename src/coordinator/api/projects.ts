import type { FastifyPluginAsync } from 'fastify';
import { atLeastOneOf } from '../../shared/errors.ts';
import { VISIBILITIES, type AccessLevel } from '../../storage/types.ts';
import type { CoordinatorContext } from '../context.ts';
import { requireActor, requireAdmin } from '../http/auth.ts';
import { pageRequest, setPaginationHeaders } from '../http/pagination.ts';
import type { Params } from '../http/params.ts';
import { paramsOf } from '../http/request-params.ts';
import { ProjectPresenter, projectViewDependencies } from '../services/project-presenter.ts';
import type { ReadDependencies } from '../services/read-cache.ts';
import { ProjectsService, type ProjectCreateRequest } from '../services/projects.ts';
import { ProjectListing, type ProjectListQuery } from '../services/projects-listing.ts';
import { registerProjectActionRoutes } from './projects-actions.ts';

const ORDER = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at'] as const;
const ACCESS_LEVELS = ['10', '20', '30', '40', '50'] as const;

/** `/projects`: listing, details and creation; edits and actions in projects-actions.ts. */
export function projectsRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const listing = new ProjectListing(context);
  const presenter = new ProjectPresenter(context);
  const projects = new ProjectsService(context);
  return async (api) => {
    api.get('/projects', async (request, reply) => {
      const params = paramsOf(request);
      const page = pageRequest(params);
      const { items, total } = await listing.list(request.actor, projectListQuery(params), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, context.config.externalUrl, page, { total });
      return items;
    });

    api.get<{ Params: { user_id: string } }>('/users/:user_id/projects', async (request, reply) => {
      const params = paramsOf(request);
      const page = pageRequest(params);
      const owner = await context.lookup.user(request.params.user_id);
      const { items, total } = await listing.list(request.actor, projectListQuery(params), { offset: page.offset, limit: page.perPage }, owner);
      setPaginationHeaders(request, reply, context.config.externalUrl, page, { total });
      return items;
    });

    api.get<{ Params: { id: string } }>('/projects/:id', async (request, reply) => {
      const params = paramsOf(request);
      const { actor } = request;
      const withCustomAttributes = params.bool('with_custom_attributes') ?? false;
      const render = async (statistics: boolean, depend?: (dependencies: ReadDependencies) => void): Promise<string> => {
        const project = await context.lookup.readableProject(request.params.id, actor);
        depend?.(projectViewDependencies(project));
        const showStatistics = statistics && (await context.permissions.projectLevelAtLeast(project, actor, 20));
        return JSON.stringify(await presenter.one(project, actor, { statistics: showStatistics, withCustomAttributes }));
      };
      // Statistics read the repository, which the database's change stamp does not cover.
      const body = params.bool('statistics')
        ? await render(true)
        : await context.readCache.get(`project\0${actor?.id ?? 0}\0${request.params.id}\0${withCustomAttributes}`, (depend) => render(false, depend));
      return reply.type('application/json').send(body);
    });

    api.post('/projects', async (request, reply) => {
      const actor = requireActor(request);
      const project = await projects.create(actor, actor, createRequest(paramsOf(request)));
      reply.code(201);
      return presenter.one(project, actor);
    });

    api.post<{ Params: { user_id: string } }>('/projects/user/:user_id', async (request, reply) => {
      const admin = requireAdmin(request);
      const owner = await context.lookup.user(request.params.user_id);
      const params = paramsOf(request);
      const project = await projects.create(admin, owner, { ...createRequest(params), namespace: params.string('namespace_id') ?? undefined });
      reply.code(201);
      return presenter.one(project, admin);
    });

    registerProjectActionRoutes(api, context, projects, presenter);
  };
}

function createRequest(params: Params): ProjectCreateRequest {
  const name = params.nonEmptyString('name');
  const path = params.nonEmptyString('path');
  if (name === undefined && path === undefined) {
    throw atLeastOneOf(['name', 'path']);
  }
  return {
    name,
    path,
    namespace: params.string('namespace_id') ?? params.string('namespace') ?? undefined,
    initializeWithReadme: params.bool('initialize_with_readme') ?? false,
    defaultBranch: params.nonEmptyString('default_branch'),
    params,
  };
}

function projectListQuery(params: Params): ProjectListQuery {
  const minAccessLevel = params.oneOf('min_access_level', ACCESS_LEVELS);
  return {
    archived: params.bool('archived'),
    visibility: params.oneOf('visibility', VISIBILITIES),
    orderBy: params.oneOf('order_by', ORDER) ?? 'created_at',
    sort: params.oneOf('sort', ['asc', 'desc'] as const) ?? 'desc',
    search: params.string('search') || undefined,
    searchNamespaces: params.bool('search_namespaces'),
    simple: params.bool('simple') ?? false,
    owned: params.bool('owned') ?? false,
    membership: params.bool('membership') ?? false,
    starred: params.bool('starred') ?? false,
    statistics: params.bool('statistics') ?? false,
    withCustomAttributes: params.bool('with_custom_attributes') ?? false,
    customAttributes: params.hash('custom_attributes'),
    minAccessLevel: minAccessLevel === undefined ? undefined : (Number(minAccessLevel) as AccessLevel),
    lastActivityAfter: params.dateTime('last_activity_after'),
    lastActivityBefore: params.dateTime('last_activity_before'),
    idAfter: params.int('id_after'),
    idBefore: params.int('id_before'),
    withIssuesEnabled: params.bool('with_issues_enabled'),
    withMergeRequestsEnabled: params.bool('with_merge_requests_enabled'),
  };
}
