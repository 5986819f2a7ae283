import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { invalidParam } from '../../shared/errors.ts';
import type { CoordinatorContext } from '../context.ts';
import { contentDisposition, looksBinary, withFirstChunk } from '../http/blob-response.ts';
import { messageAnswers } from '../http/error-responses.ts';
import { pageRequest, setPaginationHeaders, slicePage } from '../http/pagination.ts';
import { paramsOf } from '../http/request-params.ts';
import { serializeCommit, serializeDiff } from '../http/serializers/commits.ts';
import { ARCHIVE_CONTENT_TYPE } from '../http/web-downloads.ts';
import { RepositoryAccess } from '../services/repository/access.ts';
import { archiveFormat, BrowsingService } from '../services/repository/browsing.ts';
import { repositoryClient } from './repository-client.ts';

interface ProjectPath {
  id: string;
}

interface BlobPath extends ProjectPath {
  sha: string;
}

/** `/projects/:id/repository/{tree,blobs,archive,compare,contributors}`. */
export function repositoryBrowsingRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const access = new RepositoryAccess(context);
  const browsing = new BrowsingService();
  const { externalUrl } = context.config;
  return async (api) => {
    const base = '/projects/:id/repository';

    api.get<{ Params: ProjectPath }>(`${base}/tree`, async (request, reply) => {
      const params = paramsOf(request);
      const page = pageRequest(params);
      const target = await access.forRead(request.params.id, request.actor, repositoryClient(request, reply));
      const entries = await browsing.tree(target, params.string('ref') || undefined, params.string('path') ?? '', params.bool('recursive') ?? false);
      setPaginationHeaders(request, reply, externalUrl, page, { total: entries.length });
      return slicePage(entries, page).map(({ id, name, type, path, mode }) => ({ id, name, type, path, mode }));
    });

    api.get<{ Params: BlobPath }>(`${base}/blobs/:sha`, async (request) => {
      const target = await access.forRead(request.params.id, request.actor);
      return browsing.blob(target, request.params.sha);
    });

    api.get<{ Params: BlobPath }>(`${base}/blobs/:sha/raw`, async (request, reply) => {
      const target = await access.forRead(request.params.id, request.actor);
      const { size, stream } = await browsing.rawBlob(target, request.params.sha);
      const { head, body } = await withFirstChunk(stream);
      reply.header('Content-Length', String(size));
      return reply.type(looksBinary(head) ? 'application/octet-stream' : 'text/plain; charset=utf-8').send(body);
    });

    const sendArchive = async (request: FastifyRequest<{ Params: ProjectPath }>, reply: FastifyReply, suffix: string | undefined) => {
      const params = paramsOf(request);
      const requested = suffix ?? (params.string('format') || 'tar.gz');
      const format = archiveFormat(requested);
      if (!format) throw invalidParam('format', 'does not have a valid value');
      const target = await access.forRead(request.params.id, request.actor, repositoryClient(request, reply));
      const archive = await browsing.archive(target, params.string('sha') || undefined, format);
      const { body } = await withFirstChunk(archive.stream);
      reply.header('Content-Disposition', contentDisposition('attachment', archive.fileName));
      reply.header('Content-Transfer-Encoding', 'binary');
      return reply.type(ARCHIVE_CONTENT_TYPE[format]).send(body);
    };
    api.get<{ Params: ProjectPath }>(`${base}/archive`, (request, reply) => sendArchive(request, reply, undefined));
    api.get<{ Params: ProjectPath & { format: string } }>(`${base}/archive.:format`, (request, reply) => sendArchive(request, reply, request.params.format));

    api.get<{ Params: ProjectPath }>(`${base}/compare`, async (request, reply) => {
      const params = paramsOf(request);
      const target = await access.forRead(request.params.id, request.actor, repositoryClient(request, reply));
      const from = params.requiredString('from');
      const to = params.requiredString('to');
      const comparison = await browsing.compare(target, from, to, params.bool('straight') ?? false);
      const urls = { externalUrl, projectFullPath: target.fullPath };
      const commits = comparison.commits.map((commit) => serializeCommit(commit, urls));
      return {
        commit: commits.at(-1) ?? null,
        commits,
        diffs: comparison.diffs.map(serializeDiff),
        compare_timeout: false,
        compare_same_ref: comparison.sameRef,
      };
    });

    api.get<{ Params: ProjectPath }>(`${base}/merge_base`, { config: { errorAnswers: messageAnswers(400, ['GANTRY_E_REF_NOT_FOUND']) } }, async (request) => {
      const refs = paramsOf(request).stringArray('refs') ?? [];
      const target = await access.forRead(request.params.id, request.actor);
      return serializeCommit(await browsing.mergeBase(target, refs), { externalUrl, projectFullPath: target.fullPath });
    });

    api.get<{ Params: ProjectPath }>(`${base}/contributors`, async (request, reply) => {
      const params = paramsOf(request);
      const page = pageRequest(params);
      const orderBy = params.oneOf('order_by', ['name', 'email', 'commits'] as const);
      const sort = params.oneOf('sort', ['asc', 'desc'] as const) ?? 'asc';
      const target = await access.forRead(request.params.id, request.actor, repositoryClient(request, reply));
      const contributors = await browsing.contributors(target, orderBy, sort);
      setPaginationHeaders(request, reply, externalUrl, page, { total: contributors.length });
      return slicePage(contributors, page).map(({ name, email, commits, additions, deletions }) => ({ name, email, commits, additions, deletions }));
    });
  };
}
