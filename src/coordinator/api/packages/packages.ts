import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { PACKAGE_ORDERS } from '../../../storage/types-packages.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializePackage, serializePackageFile } from '../../http/serializers/packages.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

/** Every package type and status GitLab names: the filters take them all, and those Gantry never makes list nothing. */
const GITLAB_PACKAGE_TYPES = ['maven', 'npm', 'conan', 'nuget', 'pypi', 'composer', 'generic', 'golang', 'debian', 'rubygems', 'helm', 'terraform_module', 'rpm', 'ml_model'] as const;
const GITLAB_PACKAGE_STATUSES = ['default', 'hidden', 'processing', 'error', 'pending_destruction', 'deprecated'] as const;

const PROJECT = { id: Param.string({ description: 'Project id or URL-encoded full path' }) };
const ProjectPath = Type.Object(PROJECT);
const PackagePath = Type.Object({ ...PROJECT, package_id: Param.integer({ minimum: 1, description: 'Package id' }) });
const FilePath = Type.Object({ ...PROJECT, package_id: Param.integer({ minimum: 1, description: 'Package id' }), package_file_id: Param.integer({ minimum: 1, description: 'Package file id' }) });

const ListQuery = Type.Object({
  ...PAGINATION,
  order_by: Type.Optional(Param.oneOf(PACKAGE_ORDERS, { description: 'Order by created_at (default), name, version or type' })),
  sort: Type.Optional(Param.oneOf(['asc', 'desc'], { description: 'asc (default) or desc' })),
  package_type: Type.Optional(Param.oneOf(GITLAB_PACKAGE_TYPES, { description: 'Only packages of this type' })),
  package_name: Type.Optional(Param.string({ description: 'Only packages whose name contains this (case-insensitive)' })),
  package_version: Type.Optional(Param.string({ description: 'Only packages of this version' })),
  include_versionless: Type.Optional(Param.boolean({ description: 'Accepted for compatibility (generic packages always have a version)' })),
  status: Type.Optional(Param.oneOf(GITLAB_PACKAGE_STATUSES, { description: 'Only packages of this status (default: all but hidden)' })),
});

const PageQuery = Type.Object(PAGINATION);
/** A CI job token of the project reads and manages its packages as the job's user (GitLab's `job_token_allowed`). */
const config = { jobTokenAllowed: true };
const tags = ['packages'];

/** `/projects/:id/packages[/:package_id[/package_files[/:package_file_id]]]`. */
export function packagesRoutes({ packages }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/packages';

    api.get(base, { schema: { summary: "List a project's packages", tags, params: ProjectPath, querystring: ListQuery }, config }, async (request, reply) => {
      const { query } = request;
      const page = pageOf(query);
      const filter = {
        packageType: query.package_type,
        name: query.package_name,
        version: query.package_version,
        status: query.status,
        orderBy: query.order_by ?? 'created_at',
        sort: query.sort ?? 'asc',
      };
      const { items, total } = await packages.list(request.params.id, request.actor, filter, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((view) => serializePackage(view, edge.externalUrl));
    });

    api.get(`${base}/:package_id`, { schema: { summary: 'Get a package', tags, params: PackagePath }, config }, async (request) => {
      return serializePackage(await packages.get(request.params.id, request.actor, request.params.package_id), edge.externalUrl);
    });

    api.delete(`${base}/:package_id`, { schema: { summary: 'Delete a package and its files', tags, params: PackagePath }, config }, async (request, reply) => {
      await packages.remove(request.params.id, request.actor, request.params.package_id);
      return reply.code(204).send();
    });

    api.get(`${base}/:package_id/package_files`, { schema: { summary: "List a package's files", tags, params: PackagePath, querystring: PageQuery }, config }, async (request, reply) => {
      const page = pageOf(request.query);
      const { projectFullPath, items, total } = await packages.listFiles(request.params.id, request.actor, request.params.package_id, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((view) => serializePackageFile(view, edge.externalUrl, projectFullPath));
    });

    api.delete(`${base}/:package_id/package_files/:package_file_id`, { schema: { summary: 'Delete a package file', tags, params: FilePath }, config }, async (request, reply) => {
      const { id, package_id: packageId, package_file_id: fileId } = request.params;
      await packages.removeFile(id, request.actor, packageId, fileId);
      return reply.code(204).send();
    });
  };
}
