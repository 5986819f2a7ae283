import type { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '#deps/typebox';
import { GantryError, isGantryError, missingParam } from '../../../shared/errors.ts';
import { messageAnswer, type ErrorAnswerOverrides } from '../../http/error-responses.ts';
import { Param } from '../../http/gitlab-params.ts';
import { requestSignal } from '../../http/request-lifetimes.ts';
import { ARTIFACT_FORMATS, ARTIFACT_TYPES, type UploadParameters } from '../../services/ci/runners/artifact-uploads.ts';
import { JobNotRunningError } from '../../services/ci/runners/job-token-access.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { sendDownload } from './jobs.ts';

const JobPath = Type.Object({ id: Param.integer({ minimum: 1, description: 'Job id' }) });

const TOKEN = { token: Type.Optional(Param.string({ description: 'Job token, when not in the JOB-TOKEN header' })) };

const UploadQuery = Type.Object({
  ...TOKEN,
  artifact_type: Type.Optional(Param.oneOf(ARTIFACT_TYPES, { description: 'Type of the artifact (default archive)' })),
  artifact_format: Type.Optional(Param.oneOf(ARTIFACT_FORMATS, { description: 'Format of the file (default zip)' })),
  expire_in: Type.Optional(Param.string({ description: 'When the artifact expires (`1 week`, `never`); default: the instance setting' })),
});

const DownloadQuery = Type.Object({
  ...TOKEN,
  direct_download: Type.Optional(Param.boolean({ description: 'Redirect to object storage when possible (files here are always served directly)' })),
});

/** The runner API answers an unknown job with a bare `404 Not Found`, and a model refusal as its message. */
const errorAnswers: ErrorAnswerOverrides = {
  GANTRY_E_JOB_NOT_FOUND: { status: 404, body: () => ({ message: '404 Not Found' }) },
  GANTRY_E_VALIDATION_FAILED: messageAnswer(400),
  // Ci::JobArtifacts::CreateService: `error('another artifact of the same type already exists', :bad_request)`.
  GANTRY_E_ALREADY_EXISTS: messageAnswer(400),
};

/** Form fields that may stand in for the query parameters when they come before the file. */
const UPLOAD_FIELDS = ['artifact_type', 'artifact_format', 'expire_in'] as const;

type Part =
  | { type: 'field'; fieldname: string; value: unknown }
  | { type: 'file'; fieldname: string; filename: string; file: Readable };

const tags = ['runner protocol'];

/** Bytes of the file part the parser buffers ahead of the disk (busboy's default, 16 KiB, stalls the socket at every write). */
const PART_BUFFER = 1024 * 1024;

/** GitLab reads the job token as `params[:token] || env['HTTP_JOB_TOKEN']`: the parameter first, then the `JOB-TOKEN` header. */
function jobToken(request: FastifyRequest, query: { token?: string }): string | undefined {
  if (query.token !== undefined) return query.token;
  const header = request.headers['job-token'];
  return typeof header === 'string' ? header : undefined;
}

/** Runs `action`; a refusal because the job stopped running carries the job's status in `Job-Status`, as GitLab's `job_forbidden!`. */
async function withJobStatus<T>(reply: FastifyReply, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof JobNotRunningError) void reply.header('Job-Status', error.jobStatus);
    throw error;
  }
}

/**
 * Artifacts as gitlab-runner moves them (reference/runner-protocol.md §6): `POST
 * /jobs/:id/artifacts` (one multipart part `file`, streamed to disk as it arrives; 201 with
 * body `201`) and `GET /jobs/:id/artifacts` (a dependency's archive, streamed). The caller is
 * a job, identified by its token; the body is not read before the token is checked.
 */
export function runnerArtifactsRoutes({ artifactUploads, dependencyArtifacts }: CoordinatorServices, _edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.post(
      '/jobs/:id/artifacts',
      { schema: { summary: "Upload a job's artifacts (runner)", tags, params: JobPath, querystring: UploadQuery }, config: { streamsMultipart: true, errorAnswers } },
      async (request, reply) => {
        const target = await withJobStatus(reply, () => artifactUploads.authorize(request.params.id, jobToken(request, request.query)));
        if (!request.isMultipart()) throw missingParam('file');
        // The artifact store enforces the size limit (413); busboy's own limit must not cut the file short first.
        const parts = request.parts({ limits: { fileSize: target.maxBytes + 1 }, fileHwm: PART_BUFFER, highWaterMark: PART_BUFFER }) as AsyncIterableIterator<Part>;
        const { fields, file } = await untilFile(request, parts);
        if (!file) throw missingParam('file');
        const { artifact_type, artifact_format, expire_in } = request.query;
        const options = artifactUploads.options({ ...fields, ...defined({ artifact_type, artifact_format, expire_in }) });
        await readingBody(request, () => artifactUploads.store(target, options, { fileName: file.filename, body: file.file }, requestSignal(reply)));
        // Anything after the file is not read into the artifact; drain it so the answer can go out.
        await readingBody(request, async () => {
          for await (const part of parts) if (part.type === 'file') part.file.resume();
        });
        return reply.code(201).send(201);
      },
    );

    api.get(
      '/jobs/:id/artifacts',
      { schema: { summary: "Download a job's artifacts archive (runner, for dependencies)", tags, params: JobPath, querystring: DownloadQuery }, config: { errorAnswers } },
      async (request, reply) => {
        return sendDownload(reply, await dependencyArtifacts.archive(request.params.id, jobToken(request, request.query)));
      },
    );
  };
}

/** Reads form fields up to the first file part; only a file named `file` counts. */
async function untilFile(request: FastifyRequest, parts: AsyncIterableIterator<Part>): Promise<{ fields: UploadParameters; file: Extract<Part, { type: 'file' }> | undefined }> {
  const fields: Record<string, string> = {};
  return readingBody(request, async () => {
    for (;;) {
      const next = await parts.next();
      if (next.done) return { fields, file: undefined };
      const part = next.value;
      if (part.type === 'file') return { fields, file: part.fieldname === 'file' ? part : undefined };
      if ((UPLOAD_FIELDS as readonly string[]).includes(part.fieldname) && typeof part.value === 'string') fields[part.fieldname] = part.value;
    }
  });
}

function defined(values: UploadParameters): UploadParameters {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}

/**
 * Runs a step that reads the request body: a client that went away, or a body that is not
 * valid multipart, is named as such (not an internal error). Disk errors stay what they are.
 */
async function readingBody<T>(request: FastifyRequest, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (isGantryError(error)) throw error;
    if (request.raw.aborted || (request.raw.destroyed && !request.raw.complete)) throw new GantryError('GANTRY_E_CLIENT_GONE', 'the runner went away during the upload', {}, { cause: error });
    const message = error instanceof Error ? error.message : String(error);
    if (/multipart|boundary|unexpected end|terminated early|malformed/i.test(message)) {
      throw new GantryError('GANTRY_E_MULTIPART_MALFORMED', `multipart body is malformed (${message})`, {}, { cause: error });
    }
    throw error;
  }
}
