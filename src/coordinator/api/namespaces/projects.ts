import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { Static } from '#deps/typebox';
import { atLeastOneOf, invalidParam } from '../../../shared/errors.ts';
import type { AccessLevel } from '../../../storage/types.ts';
import { requireActor } from '../../http/auth.ts';
import { pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeProject } from '../../http/serializers/namespaces/projects.ts';
import type { ProjectListQuery } from '../../services/namespaces/projects-listing.ts';
import type { ProjectCreateRequest } from '../../services/namespaces/projects.ts';
import { projectViewDependencies } from '../../services/namespaces/project-views.ts';
import type { ReadDependencies } from '../../services/access/read-cache.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { AVATAR_UPLOAD, checkedAvatar, withProjectAvatar } from '../accounts/avatar-upload.ts';
import { ProjectCreateBody, ProjectGetQuery, ProjectId, ProjectListQuery as ListQuery, UserProjectsPath, topicNames } from './projects-schemas.ts';

const tags = ['projects'];

/** `/projects`: listing, details and creation; edits and actions in projects-actions.ts (registered alongside). */
export function projectsRoutes(services: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const { projectListing, projectActions, readCache, avatars } = services;
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/projects', { schema: { summary: 'List projects', tags, querystring: ListQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await projectListing.list(request.actor, listQuery(request.query), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((view) => serializeProject(view, edge.externalUrl));
    });

    api.get('/projects/:id/forks', { schema: { summary: "List a project's forks", tags, params: ProjectId, querystring: ListQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await projectListing.listForks(request.params.id, request.actor, listQuery(request.query), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((view) => serializeProject(view, edge.externalUrl));
    });

    api.get('/users/:user_id/projects', { schema: { summary: "List a user's personal projects", tags, params: UserProjectsPath, querystring: ListQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const query = listQuery(request.query);
      const { items, total } = await projectListing.listForUser(request.params.user_id, request.actor, query, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((view) => serializeProject(view, edge.externalUrl));
    });

    api.get('/projects/:id', { schema: { summary: 'Get a project', tags, params: ProjectId, querystring: ProjectGetQuery } }, async (request, reply) => {
      const { actor } = request;
      const read = { ref: request.params.id, statistics: request.query.statistics ?? false, withCustomAttributes: request.query.with_custom_attributes ?? false };
      const render = async (depend?: (dependencies: ReadDependencies) => void): Promise<string> => {
        const view = await projectActions.get(read, actor);
        depend?.(projectViewDependencies(view.project));
        return JSON.stringify(serializeProject(view, edge.externalUrl));
      };
      // Statistics read the repository, whose changes no store reports to the read cache.
      const body = read.statistics ? await render() : await readCache.get(`project\0${actor?.id ?? 0}\0${read.ref}\0${read.withCustomAttributes}`, render);
      return reply.type('application/json').send(body);
    });

    api.post('/projects', { schema: { summary: 'Create a project', tags, body: ProjectCreateBody }, config: AVATAR_UPLOAD }, async (request, reply) => {
      const actor = requireActor(request);
      const avatar = await checkedAvatar(request, avatars);
      const project = await withProjectAvatar(await projectActions.create(actor, createRequest(request.body)), avatar, avatars);
      reply.code(201);
      return serializeProject(project, edge.externalUrl);
    });

    const forUserSchema = { summary: 'Create a project for a user (administrators)', tags, params: UserProjectsPath, body: ProjectCreateBody };
    api.post('/projects/user/:user_id', { schema: forUserSchema, config: AVATAR_UPLOAD }, async (request, reply) => {
      const input = { ...createRequest(request.body), namespace: request.body.namespace_id };
      const avatar = await checkedAvatar(request, avatars);
      const project = await withProjectAvatar(await projectActions.create(requireActor(request), input, request.params.user_id), avatar, avatars);
      reply.code(201);
      return serializeProject(project, edge.externalUrl);
    });
  };
}

/** A parameter that, when given, must not be blank (grape's `allow_blank: false`: "name is empty"). */
export function notBlank(name: string, value: string | undefined): string | undefined {
  if (value !== undefined && value.trim() === '') throw invalidParam(name, 'is empty');
  return value;
}

function createRequest(body: Static<typeof ProjectCreateBody>): ProjectCreateRequest {
  const { name, path, namespace_id, namespace, initialize_with_readme, default_branch, ...attributes } = body;
  const request = {
    name: notBlank('name', name),
    path: notBlank('path', path),
    namespace: namespace_id ?? namespace,
    initializeWithReadme: initialize_with_readme ?? false,
    defaultBranch: notBlank('default_branch', default_branch),
    attributes,
  };
  if (request.name === undefined && request.path === undefined) throw atLeastOneOf(['name', 'path']);
  return request;
}

function listQuery(query: Static<typeof ListQuery>): ProjectListQuery {
  return {
    archived: query.archived,
    visibility: query.visibility,
    orderBy: query.order_by ?? 'created_at',
    sort: query.sort ?? 'desc',
    search: query.search || undefined,
    searchNamespaces: query.search_namespaces,
    simple: query.simple ?? false,
    owned: query.owned ?? false,
    membership: query.membership ?? false,
    starred: query.starred ?? false,
    statistics: query.statistics ?? false,
    withCustomAttributes: query.with_custom_attributes ?? false,
    customAttributes: query.custom_attributes,
    minAccessLevel: query.min_access_level === undefined ? undefined : (Number(query.min_access_level) as AccessLevel),
    lastActivityAfter: query.last_activity_after,
    lastActivityBefore: query.last_activity_before,
    idAfter: query.id_after,
    idBefore: query.id_before,
    withIssuesEnabled: query.with_issues_enabled,
    withMergeRequestsEnabled: query.with_merge_requests_enabled,
    topics: topicNames(query.topic),
  };
}
