import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '#deps/typebox';
import { invalidParam } from '../../../shared/errors.ts';
import { contentDisposition, looksBinary, withFirstChunk } from '../../http/blob-response.ts';
import { messageAnswers } from '../../http/error-responses.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeCommit } from '../../http/serializers/repository/commits.ts';
import { comparisonJson, serializeBlob, serializeContributor, serializeTreeEntry } from '../../http/serializers/repository/repository.ts';
import { ARCHIVE_CONTENT_TYPE } from '../../http/web-downloads.ts';
import { archiveFormat } from '../../services/repository/browsing.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { repositoryClient } from './client.ts';
import { PROJECT_ID, ProjectPath } from './params.ts';

const BlobPath = Type.Object({ ...PROJECT_ID, sha: Param.string({ description: 'Blob object id' }) });
const ArchivePath = Type.Object({ ...PROJECT_ID, format: Param.string({ description: 'Archive format, as a file suffix' }) });

const TreeQuery = Type.Object({
  ref: Type.Optional(Param.string({ description: 'Branch, tag or commit (default branch when absent)' })),
  path: Type.Optional(Param.string({ description: 'Directory inside the repository' })),
  recursive: Type.Optional(Param.boolean({ description: 'Whether to list subdirectories too' })),
  ...PAGINATION,
});

const ARCHIVE_SHA = { sha: Type.Optional(Param.string({ description: 'Branch, tag or commit (default branch when absent)' })) };
// A string, not an enumeration: an empty format means the default, as it does for GitLab.
const ArchiveQuery = Type.Object({ ...ARCHIVE_SHA, format: Type.Optional(Param.string({ description: 'Archive format: zip, tar, tar.gz (default), tgz, gz, tar.bz2, tbz, tbz2, tb2, bz2' })) });
const ArchiveSuffixQuery = Type.Object(ARCHIVE_SHA);

const CompareQuery = Type.Object({
  from: Param.string({ minLength: 1, description: 'Commit, branch or tag to compare from' }),
  to: Param.string({ minLength: 1, description: 'Commit, branch or tag to compare to' }),
  straight: Type.Optional(Param.boolean({ description: 'Compare from..to directly instead of from the merge base' })),
});

const MergeBaseQuery = Type.Object({ refs: Type.Optional(Param.strings({ description: 'Two or more refs' })) });

const ContributorsQuery = Type.Object({
  order_by: Type.Optional(Param.oneOf(['name', 'email', 'commits'], { description: 'Order contributors by' })),
  sort: Type.Optional(Param.oneOf(['asc', 'desc'], { description: 'Sort direction (default asc)' })),
  ...PAGINATION,
});

const tags = ['repository'];

/** `/projects/:id/repository/{tree,blobs,archive,compare,merge_base,contributors}`. */
export function repositoryBrowsingRoutes({ browsing }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const { externalUrl } = edge;
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/repository';

    api.get(`${base}/tree`, { schema: { summary: 'List a repository tree', tags, params: ProjectPath, querystring: TreeQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const query = { ref: request.query.ref || undefined, path: request.query.path ?? '', recursive: request.query.recursive ?? false };
      const { items, total } = await browsing.tree(request.params.id, request.actor, query, { offset: page.offset, limit: page.perPage }, repositoryClient(request, reply));
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      return items.map(serializeTreeEntry);
    });

    api.get(`${base}/blobs/:sha`, { schema: { summary: 'Get a blob (base64)', tags, params: BlobPath } }, async (request) => {
      return serializeBlob(await browsing.blob(request.params.id, request.actor, request.params.sha));
    });

    // Streamed: the bytes go out as git reads them.
    api.get(`${base}/blobs/:sha/raw`, { schema: { summary: 'Get the raw content of a blob', tags, params: BlobPath } }, async (request, reply) => {
      const { size, stream } = await browsing.rawBlob(request.params.id, request.actor, request.params.sha);
      const { head, body } = await withFirstChunk(stream);
      reply.header('Content-Length', String(size));
      return reply.type(looksBinary(head) ? 'application/octet-stream' : 'text/plain; charset=utf-8').send(body);
    });

    const sendArchive = async (request: FastifyRequest, reply: FastifyReply, projectRef: string, sha: string | undefined, formatName: string) => {
      const format = archiveFormat(formatName);
      if (!format) throw invalidParam('format', 'does not have a valid value');
      const archive = await browsing.archive(projectRef, request.actor, sha, format, repositoryClient(request, reply));
      // Streamed: the archive goes out as git writes it.
      const { body } = await withFirstChunk(archive.stream);
      reply.header('Content-Disposition', contentDisposition('attachment', archive.fileName));
      reply.header('Content-Transfer-Encoding', 'binary');
      return reply.type(ARCHIVE_CONTENT_TYPE[format]).send(body);
    };
    api.get(`${base}/archive`, { schema: { summary: 'Download an archive of the repository', tags, params: ProjectPath, querystring: ArchiveQuery } }, (request, reply) =>
      sendArchive(request, reply, request.params.id, request.query.sha || undefined, request.query.format || 'tar.gz'),
    );
    api.get(`${base}/archive.:format`, { schema: { summary: 'Download an archive of the repository in the format of the suffix', tags, params: ArchivePath, querystring: ArchiveSuffixQuery } }, (request, reply) =>
      sendArchive(request, reply, request.params.id, request.query.sha || undefined, request.params.format),
    );

    api.get(`${base}/compare`, { schema: { summary: 'Compare branches, tags or commits', tags, params: ProjectPath, querystring: CompareQuery } }, async (request, reply) => {
      const { from, to, straight } = request.query;
      const { target, comparison } = await browsing.compare(request.params.id, request.actor, { from, to, straight: straight ?? false }, repositoryClient(request, reply));
      // Streamed: the diff is read from git as the answer is written, under GitLab's diff limits.
      const body = Readable.from(comparisonJson(comparison, { externalUrl, projectFullPath: target.fullPath }), { objectMode: false });
      return reply.type('application/json').send(body);
    });

    const mergeBaseOptions = { schema: { summary: 'Get the common ancestor of refs', tags, params: ProjectPath, querystring: MergeBaseQuery }, config: { errorAnswers: messageAnswers(400, ['GANTRY_E_REF_NOT_FOUND']) } };
    api.get(`${base}/merge_base`, mergeBaseOptions, async (request) => {
      const { target, commit } = await browsing.mergeBase(request.params.id, request.actor, request.query.refs ?? []);
      return serializeCommit(commit, { externalUrl, projectFullPath: target.fullPath });
    });

    api.get(`${base}/contributors`, { schema: { summary: 'List repository contributors', tags, params: ProjectPath, querystring: ContributorsQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const order = { orderBy: request.query.order_by, sort: request.query.sort ?? 'asc' };
      const { items, total } = await browsing.contributors(request.params.id, request.actor, order, { offset: page.offset, limit: page.perPage }, repositoryClient(request, reply));
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      return items.map(serializeContributor);
    });
  };
}
