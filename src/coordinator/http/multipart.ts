import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { GantryError, isGantryError } from '../../shared/errors.ts';
import { assignParam, type ParamMap } from './querystring.ts';
import type { UploadedFile } from './uploaded-file.ts';

type MultipartPart =
  | { type: 'field'; fieldname: string; value: unknown }
  | { type: 'file'; fieldname: string; filename: string; mimetype: string; file: Readable & { truncated?: boolean } };

declare module 'fastify' {
  interface FastifyRequest {
    /** Files of this request's multipart body by field name (parameters stay in `body`); null without files. */
    uploads: Record<string, UploadedFile> | null;
    /** Their temporary files, removed once the request is answered or aborted; null without files. */
    uploadedFiles: string[] | null;
  }
  interface FastifyContextConfig {
    /** The handler reads the multipart body itself, part by part, as streams (artifact uploads): nothing is collected for it. */
    streamsMultipart?: boolean;
    /**
     * A lower bound for this route's files than the upload limit (avatars, attachments): a file
     * past it stops being written at the bound and arrives marked `overLimit`, for the handler
     * to answer with GitLab's message.
     */
    fileSizeLimit?: number | ((request: FastifyRequest) => Promise<number>);
  }
}

/**
 * Multipart bodies become parameters like form fields; files stream to temporary files in
 * `uploadDirectory` and become UploadedFile parameters. A malformed body (no boundary,
 * broken part headers) is the caller's mistake (GANTRY_E_MULTIPART_MALFORMED); the plugin's
 * limits stay GANTRY_E_BODY_TOO_LARGE (a file past the upload limit stops being read and
 * written at the limit).
 */
export function collectMultipartBodies(app: FastifyInstance, uploadDirectory: string, uploadLimit = Number.POSITIVE_INFINITY): void {
  // Reference-type decorations start as null and are set, per request, by the first file (fastify's rule).
  app.decorateRequest('uploads', null);
  app.decorateRequest('uploadedFiles', null);
  // Callback hooks: every request passes them, and most have no multipart body (no promise for those).
  app.addHook('preValidation', (request, _reply, done) => {
    if (!request.isMultipart() || request.routeOptions.config.streamsMultipart === true) {
      done();
      return;
    }
    collectRequestParts(request, uploadDirectory, uploadLimit).then(
      (body) => {
        request.body = body;
        done();
      },
      (error: unknown) => {
        if (isGantryError(error) || hasClientStatus(error)) done(error as FastifyError);
        else done(new GantryError('GANTRY_E_MULTIPART_MALFORMED', `multipart body is malformed (${error instanceof Error ? error.message : String(error)})`) as FastifyError);
      },
    );
  });
  const removeUploads = (request: FastifyRequest, done: (error?: FastifyError) => void): void => {
    const files = request.uploadedFiles ?? [];
    if (files.length === 0) {
      done();
      return;
    }
    request.uploadedFiles = null;
    void Promise.all(files.map((file) => rm(file, { force: true }))).then(() => done(), (error: unknown) => done(error as FastifyError));
  };
  app.addHook('onResponse', (request, _reply, done) => removeUploads(request, done));
  app.addHook('onRequestAbort', removeUploads);
}

async function collectRequestParts(request: FastifyRequest, uploadDirectory: string, uploadLimit: number): Promise<ParamMap> {
  const bound = request.routeOptions.config.fileSizeLimit;
  if (bound === undefined) return collectParts(request, request.parts() as AsyncIterable<MultipartPart>, uploadDirectory);
  // A route's bound only ever lowers the upload limit.
  const fileSize = Math.min(typeof bound === 'number' ? bound : await bound(request), uploadLimit);
  // One byte past the bound tells a file of exactly the bound from a longer one.
  const parts = request.parts({ limits: { fileSize: fileSize + 1 }, throwFileSizeLimit: false } as Parameters<FastifyRequest['parts']>[0]);
  return collectParts(request, parts as AsyncIterable<MultipartPart>, uploadDirectory, fileSize);
}

async function collectParts(request: FastifyRequest, parts: AsyncIterable<MultipartPart>, uploadDirectory: string, bound?: number): Promise<ParamMap> {
  const out: ParamMap = Object.create(null) as ParamMap;
  for await (const part of parts) {
    if (part.type === 'file') {
      const upload = await writeUpload(request, part, uploadDirectory, bound);
      (request.uploads ??= Object.create(null) as Record<string, UploadedFile>)[part.fieldname] = upload;
    } else {
      assignParam(out, part.fieldname, typeof part.value === 'string' ? part.value : String(part.value));
    }
  }
  return out;
}

async function writeUpload(request: FastifyRequest, part: Extract<MultipartPart, { type: 'file' }>, uploadDirectory: string, bound: number | undefined): Promise<UploadedFile> {
  await mkdir(uploadDirectory, { recursive: true });
  const target = path.join(uploadDirectory, `upload-${randomBytes(12).toString('hex')}`);
  (request.uploadedFiles ??= []).push(target);
  let size = 0;
  part.file.on('data', (chunk: Buffer) => {
    size += chunk.length;
  });
  await pipeline(part.file, createWriteStream(target, { flags: 'wx', mode: 0o600 }));
  const overLimit = part.file.truncated === true || (bound !== undefined && size > bound);
  if (overLimit && bound === undefined) throw new GantryError('GANTRY_E_BODY_TOO_LARGE', `the file ${part.filename} is over the upload limit`);
  return { kind: 'uploaded-file', filename: part.filename, mimetype: part.mimetype, path: target, size, ...(overLimit ? { overLimit } : {}) };
}

function hasClientStatus(error: unknown): boolean {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}
