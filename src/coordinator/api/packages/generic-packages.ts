import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from '#deps/typebox';
import { GantryError, isGantryError } from '../../../shared/errors.ts';
import { PACKAGE_STATUSES } from '../../../storage/types-packages.ts';
import { requireActor, tokenBeforeBody } from '../../http/auth.ts';
import { contentDisposition, headerText } from '../../http/blob-response.ts';
import { Param } from '../../http/gitlab-params.ts';
import { requestSignal } from '../../http/request-lifetimes.ts';
import { serializePackageFile } from '../../http/serializers/packages.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const FilePath = Type.Object({
  id: Param.string({ description: 'Project id or URL-encoded full path' }),
  package_name: Param.string({ description: 'Package name: letters, digits, `.`, `_`, `-`, `+`' }),
  package_version: Param.string({ description: 'Package version: word characters, `.`, `-`, `+`, no `..`' }),
  file_name: Param.string({ description: 'File name: letters, digits, `.`, `_`, `-`, `+`' }),
});

const UploadQuery = Type.Object({
  status: Type.Optional(Param.oneOf(PACKAGE_STATUSES, { description: 'Status of the package (default: default; hidden keeps it out of the list)' })),
  select: Type.Optional(Param.oneOf(['package_file'], { description: 'Answer the new package file instead of `201 Created`' })),
});

/** A CI job token signs these routes in (GitLab's `job_token_allowed`). */
const config = { jobTokenAllowed: true };
const tags = ['generic packages'];

/** The job token the request signed in with (none when a personal token did). */
function signingJobToken(request: FastifyRequest): string | undefined {
  if (tokenBeforeBody(request) !== undefined) return undefined;
  const header = request.headers['job-token'];
  if (typeof header === 'string' && header !== '') return header;
  const query = (request.query as Record<string, unknown> | undefined)?.job_token;
  return typeof query === 'string' && query !== '' ? query : undefined;
}

/** The request body as the raw stream this scope's parser hands over (none: an empty file). */
function bodyStream(request: FastifyRequest): Readable {
  return request.body instanceof Readable ? request.body : Readable.from([]);
}

/**
 * GitLab's generic package registry: `PUT` streams the body (curl's `--upload-file`) into a
 * package file, never holding it whole; `GET` streams the newest file of that name back. The
 * body is handed over unparsed whatever its content type.
 */
export function genericPackagesRoutes({ genericPackages }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const url = '/projects/:id/packages/generic/:package_name/:package_version/:file_name';

    api.put(url, { schema: { summary: 'Upload a generic package file', tags, params: FilePath, querystring: UploadQuery }, config }, async (request, reply) => {
      const actor = requireActor(request);
      const { id, package_name: packageName, package_version: packageVersion, file_name: fileName } = request.params;
      const length = request.headers['content-length'];
      const declaredSize = typeof length === 'string' && /^\d+$/.test(length) ? Number(length) : undefined;
      const upload = { packageName, packageVersion, fileName, status: request.query.status, jobToken: signingJobToken(request), declaredSize };
      const uploaded = await readingBody(request, () => genericPackages.upload(id, actor, upload, bodyStream(request), requestSignal(reply)));
      if (request.query.select === 'package_file') return serializePackageFile(uploaded.file, edge.externalUrl, uploaded.projectFullPath);
      return reply.code(201).send({ message: '201 Created' });
    });

    api.get(url, { schema: { summary: 'Download a generic package file', tags, params: FilePath }, config }, async (request, reply) => {
      const { id, package_name: packageName, package_version: packageVersion, file_name: fileName } = request.params;
      const download = await genericPackages.download(id, request.actor, { packageName, packageVersion, fileName });
      reply.header('Content-Disposition', headerText(contentDisposition('attachment', download.file.file_name)));
      reply.header('Content-Length', String(download.size));
      reply.header('X-Checksum-SHA256', download.file.file_sha256);
      return reply.type('application/octet-stream').send(download.stream);
    });
  };
}

/** A client that went away mid-upload is named as such, not an internal error. */
async function readingBody<T>(request: FastifyRequest, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (isGantryError(error)) throw error;
    if (request.raw.aborted || (request.raw.destroyed && !request.raw.complete)) throw new GantryError('GANTRY_E_CLIENT_GONE', 'the client went away during the upload', {}, { cause: error });
    throw error;
  }
}
