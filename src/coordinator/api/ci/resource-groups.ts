import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { RESOURCE_GROUP_PROCESS_MODES } from '../../../pipeline/resource-group-modes.ts';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeJobBasic } from '../../http/serializers/ci/jobs.ts';
import { serializeResourceGroup } from '../../http/serializers/ci/resource-groups.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const PROJECT_ID = { id: Param.string({ description: 'Project id or URL-encoded full path' }) };
const ProjectPath = Type.Object(PROJECT_ID);
// GitLab's `requirements: { key: NO_SLASH_URL_PART_REGEX }`: a key with `/` comes URL-encoded.
const GroupPath = Type.Object({ ...PROJECT_ID, key: Param.string({ description: 'The key of the resource group (URL-encoded)' }) });
const Paging = Type.Object({ ...PAGINATION });
const UpdateBody = Type.Object({
  process_mode: Type.Optional(Param.oneOf([...RESOURCE_GROUP_PROCESS_MODES], { description: 'unordered, oldest_first, newest_first or newest_ready_first' })),
});

const tags = ['ci_resource_groups'];

/** `/projects/:id/resource_groups[/:key[/upcoming_jobs|/current_job]]`: Developers list, read and change process modes. */
export function resourceGroupsRoutes({ resourceGroups }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/resource_groups';
    const one = `${base}/:key`;

    api.get(base, { schema: { summary: 'Get all resource groups for a project', tags, params: ProjectPath, querystring: Paging } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await resourceGroups.list(request.params.id, requireActor(request), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map(serializeResourceGroup);
    });

    api.get(one, { schema: { summary: 'Get a specific resource group', tags, params: GroupPath } }, async (request) => {
      return serializeResourceGroup(await resourceGroups.get(request.params.id, requireActor(request), request.params.key));
    });

    api.get(`${one}/upcoming_jobs`, { schema: { summary: 'List upcoming jobs for a specific resource group', tags, params: GroupPath, querystring: Paging } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { id, key } = request.params;
      const { items, total } = await resourceGroups.upcomingJobs(id, requireActor(request), key, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((view) => serializeJobBasic(view, { externalUrl: edge.externalUrl, projectFullPath: view.target.fullPath }));
    });

    // GitLab presents a missing holder as it is: `null`.
    api.get(`${one}/current_job`, { schema: { summary: 'Show current job for a specific resource group', tags, params: GroupPath } }, async (request) => {
      const view = await resourceGroups.currentJob(request.params.id, requireActor(request), request.params.key);
      return view && serializeJobBasic(view, { externalUrl: edge.externalUrl, projectFullPath: view.target.fullPath });
    });

    api.put(one, { schema: { summary: 'Edit an existing resource group', tags, params: GroupPath, body: UpdateBody } }, async (request) => {
      const { id, key } = request.params;
      return serializeResourceGroup(await resourceGroups.update(id, requireActor(request), key, { processMode: request.body.process_mode }));
    });
  };
}
