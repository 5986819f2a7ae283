import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { Type } from '#deps/typebox';
import { invalidParam } from '../../../shared/errors.ts';
import type { GitBlameLine, GitCommit } from '../../../storage/git/types.ts';
import { requireActor } from '../../http/auth.ts';
import { messageAnswers } from '../../http/error-responses.ts';
import { contentDisposition, headerText, looksBinary, withFirstChunk } from '../../http/blob-response.ts';
import { Param } from '../../http/gitlab-params.ts';
import { serializeCommit } from '../../http/serializers/repository/commits.ts';
import { serializeFileWrite, serializeRepositoryFile, type RepositoryFileJson } from '../../http/serializers/repository/repository.ts';
import type { FileWriteInput } from '../../services/repository/files.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { repositoryClient } from './client.ts';
import { COMMIT_WRITE_ANSWERS, decodeContent, ENCODINGS, PROJECT_ID, type ContentEncoding } from './params.ts';

const FilePath = Type.Object({ ...PROJECT_ID, file_path: Param.string({ description: 'URL-encoded path of the file (%2F for slashes)' }) });

const REF = { ref: Param.string({ minLength: 1, description: 'Branch, tag or commit' }) };
const RefQuery = Type.Object(REF);
const BlameQuery = Type.Object({ ...REF, range: Type.Optional(Param.hash({ description: 'range[start] and range[end]: lines, 1-based, inclusive' })) });

const WRITE_FIELDS = {
  branch: Param.string({ minLength: 1, description: 'Branch to commit to (created from start_branch when new)' }),
  commit_message: Param.string({ minLength: 1, description: 'Commit message' }),
  start_branch: Type.Optional(Param.string({ description: 'Branch to start a new branch from' })),
  author_name: Type.Optional(Param.string({ description: 'Author name (default: the caller)' })),
  author_email: Type.Optional(Param.string({ description: 'Author email (default: the caller)' })),
};
const CONTENT_FIELDS = {
  content: Param.string({ description: 'File content' }),
  encoding: Type.Optional(Param.oneOf(ENCODINGS, { description: 'Encoding of content (default text)' })),
  execute_filemode: Type.Optional(Param.boolean({ description: 'Whether the file is executable' })),
};
const LAST_COMMIT = { last_commit_id: Type.Optional(Param.string({ description: 'The last commit the client knows of the file' })) };
const CreateBody = Type.Object({ ...WRITE_FIELDS, ...CONTENT_FIELDS });
const UpdateBody = Type.Object({ ...WRITE_FIELDS, ...CONTENT_FIELDS, ...LAST_COMMIT });
const DeleteQuery = Type.Object({ ...WRITE_FIELDS, ...LAST_COMMIT });

interface WriteFields {
  branch: string;
  commit_message: string;
  start_branch?: string;
  author_name?: string;
  author_email?: string;
  content?: string;
  encoding?: ContentEncoding;
  execute_filemode?: boolean;
  last_commit_id?: string;
}

const tags = ['repository files'];

/** `/projects/:id/repository/files/:file_path[/raw|/blame]` (`:file_path` URL-encoded, `%2F` for slashes). */
export function repositoryFilesRoutes({ files }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/repository/files/:file_path';
    // The files API also answers a protected branch as 400 with the message (spec 01).
    const config = { errorAnswers: { ...COMMIT_WRITE_ANSWERS, ...messageAnswers(400, ['GANTRY_E_BRANCH_PROTECTED']) } };

    // HEAD is answered by the same handler without the body: the X-Gitlab-* headers carry the metadata.
    api.get(base, { schema: { summary: 'Get a file (base64) and its metadata', tags, params: FilePath, querystring: RefQuery } }, async (request, reply) => {
      const file = serializeRepositoryFile(await files.get(request.params.id, request.actor, request.params.file_path, request.query.ref));
      setFileHeaders(reply, file);
      return file;
    });

    // Streamed: the bytes go out as git reads them.
    api.get(`${base}/raw`, { schema: { summary: 'Get the raw content of a file', tags, params: FilePath, querystring: RefQuery } }, async (request, reply) => {
      const { blob, stream } = await files.raw(request.params.id, request.actor, request.params.file_path, request.query.ref);
      const { head, body } = await withFirstChunk(stream);
      const binary = looksBinary(head);
      const fileName = blob.path.slice(blob.path.lastIndexOf('/') + 1);
      reply.header('Content-Length', String(blob.size));
      reply.header('X-Gitlab-Blob-Id', blob.id);
      reply.header('Content-Disposition', contentDisposition(binary ? 'attachment' : 'inline', fileName));
      return reply.type(binary ? 'application/octet-stream' : 'text/plain; charset=utf-8').send(body);
    });

    // Streamed: the JSON is written as git blame's output arrives, so a large file costs no memory.
    api.get(`${base}/blame`, { schema: { summary: 'Blame a file: each range of lines with its last commit', tags, params: FilePath, querystring: BlameQuery } }, async (request, reply) => {
      const input = { filePath: request.params.file_path, ref: request.query.ref, range: lineRange(request.query.range) };
      const { target, lines } = await files.blame(request.params.id, request.actor, input, repositoryClient(request, reply));
      const urls = { externalUrl: edge.externalUrl, projectFullPath: target.fullPath };
      const { body } = await withFirstChunk(Readable.from(blameJson(lines, (commit) => serializeCommit(commit, urls))));
      return reply.type('application/json').send(body);
    });

    api.post(base, { schema: { summary: 'Create a file in a commit', tags, params: FilePath, body: CreateBody }, config }, async (request, reply) => {
      const actor = requireActor(request);
      const result = await files.create(request.params.id, actor, request.params.file_path, writeInput(request.body));
      return reply.code(201).send(serializeFileWrite(result));
    });

    api.put(base, { schema: { summary: 'Update a file in a commit', tags, params: FilePath, body: UpdateBody }, config }, async (request) => {
      const actor = requireActor(request);
      return serializeFileWrite(await files.update(request.params.id, actor, request.params.file_path, writeInput(request.body)));
    });

    api.delete(base, { schema: { summary: 'Delete a file in a commit', tags, params: FilePath, querystring: DeleteQuery }, config }, async (request, reply) => {
      const actor = requireActor(request);
      await files.delete(request.params.id, actor, request.params.file_path, writeInput(request.query));
      return reply.code(204).send();
    });
  };
}

function writeInput(fields: WriteFields): FileWriteInput {
  return {
    branch: fields.branch,
    commitMessage: fields.commit_message,
    content: fields.content === undefined ? undefined : decodeContent(fields.content, fields.encoding),
    startBranch: fields.start_branch || undefined,
    authorName: fields.author_name || undefined,
    authorEmail: fields.author_email || undefined,
    executeFilemode: fields.execute_filemode,
    lastCommitId: fields.last_commit_id || undefined,
  };
}

function setFileHeaders(reply: FastifyReply, file: RepositoryFileJson): void {
  reply.header('X-Gitlab-Blob-Id', file.blob_id);
  reply.header('X-Gitlab-Commit-Id', file.commit_id);
  reply.header('X-Gitlab-Content-Sha256', file.content_sha256);
  reply.header('X-Gitlab-Encoding', file.encoding);
  reply.header('X-Gitlab-File-Name', headerText(file.file_name));
  reply.header('X-Gitlab-File-Path', headerText(file.file_path));
  reply.header('X-Gitlab-Last-Commit-Id', file.last_commit_id);
  reply.header('X-Gitlab-Ref', headerText(file.ref));
  reply.header('X-Gitlab-Size', String(file.size));
}

/** `range[start]` and `range[end]` (1-based, inclusive), both or neither. */
function lineRange(range: Record<string, string> | undefined): { start: number; end: number } | undefined {
  if (range === undefined) return undefined;
  const start = Number(range.start);
  const end = Number(range.end);
  if (!Number.isInteger(start) || start < 1) throw invalidParam('range[start]', 'is invalid');
  if (!Number.isInteger(end) || end < start) throw invalidParam('range[end]', 'is invalid');
  return { start, end };
}

/** Bytes of JSON gathered before a chunk is written. */
const BLAME_CHUNK = 64 * 1024;

/**
 * GitLab's blame answer, `[{"commit":{...},"lines":[...]}, ...]` with consecutive lines of
 * one commit in one range, written as the lines arrive.
 */
async function* blameJson(batches: AsyncIterable<GitBlameLine[]>, serialize: (commit: GitCommit) => unknown): AsyncGenerator<string> {
  let pending = '[';
  let current: string | null = null;
  for await (const batch of batches) {
    for (const { commit, line } of batch) {
      if (commit.id === current) {
        pending += `,${JSON.stringify(line)}`;
      } else {
        pending += `${current === null ? '' : ']},'}{"commit":${JSON.stringify(serialize(commit))},"lines":[${JSON.stringify(line)}`;
        current = commit.id;
      }
    }
    if (pending.length >= BLAME_CHUNK) {
      yield pending;
      pending = '';
    }
  }
  yield `${pending}${current === null ? ']' : ']}]'}`;
}
