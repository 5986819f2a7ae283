import { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { invalidParam } from '../../shared/errors.ts';
import type { CoordinatorContext } from '../context.ts';
import { requireActor } from '../http/auth.ts';
import { messageAnswers } from '../http/error-responses.ts';
import { contentDisposition, headerText, looksBinary, withFirstChunk } from '../http/blob-response.ts';
import type { Params } from '../http/params.ts';
import { paramsOf } from '../http/request-params.ts';
import { serializeCommit } from '../http/serializers/commits.ts';
import { FilesService, type FileWriteInput, type RepositoryFileJson } from '../services/repository/files.ts';
import type { GitBlameLine, GitCommit } from '../../storage/git/types.ts';
import { repositoryClient } from './repository-client.ts';
import { COMMIT_WRITE_ANSWERS, decodeContent } from './repository-params.ts';

interface FilePath {
  id: string;
  file_path: string;
}

/** `/projects/:id/repository/files/:file_path[/raw|/blame]` (`:file_path` URL-encoded, `%2F` for slashes). */
export function repositoryFilesRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const files = new FilesService(context);
  return async (api) => {
    const base = '/projects/:id/repository/files/:file_path';
    // The files API also answers a protected branch as 400 with the message (spec 01).
    const writes = { config: { errorAnswers: { ...COMMIT_WRITE_ANSWERS, ...messageAnswers(400, ['GANTRY_E_BRANCH_PROTECTED']) } } };

    // HEAD is answered by the same handler without the body: the X-Gitlab-* headers carry the metadata.
    api.get<{ Params: FilePath }>(base, async (request, reply) => {
      const target = await files.access.forRead(request.params.id, request.actor);
      const ref = paramsOf(request).requiredString('ref');
      const file = await files.get(target, request.params.file_path, ref);
      setFileHeaders(reply, file);
      return file;
    });

    api.get<{ Params: FilePath }>(`${base}/raw`, async (request, reply) => {
      const target = await files.access.forRead(request.params.id, request.actor);
      const ref = paramsOf(request).requiredString('ref');
      const { blob, stream } = await files.raw(target, request.params.file_path, ref);
      const { head, body } = await withFirstChunk(stream);
      const binary = looksBinary(head);
      const fileName = blob.path.slice(blob.path.lastIndexOf('/') + 1);
      reply.header('Content-Length', String(blob.size));
      reply.header('X-Gitlab-Blob-Id', blob.id);
      reply.header('Content-Disposition', contentDisposition(binary ? 'attachment' : 'inline', fileName));
      return reply.type(binary ? 'application/octet-stream' : 'text/plain; charset=utf-8').send(body);
    });

    // Streamed: the JSON is written as git blame's output arrives, so a large file costs no memory.
    api.get<{ Params: FilePath }>(`${base}/blame`, async (request, reply) => {
      const params = paramsOf(request);
      const ref = params.requiredString('ref');
      const range = lineRange(params);
      const target = await files.access.forRead(request.params.id, request.actor, repositoryClient(request, reply));
      const lines = await files.blame(target, request.params.file_path, ref, range);
      const urls = { externalUrl: context.config.externalUrl, projectFullPath: target.fullPath };
      const { body } = await withFirstChunk(Readable.from(blameJson(lines, (commit) => serializeCommit(commit, urls))));
      return reply.type('application/json').send(body);
    });

    api.post<{ Params: FilePath }>(base, writes, async (request, reply) => {
      const actor = requireActor(request);
      const input = writeInput(paramsOf(request), 'create');
      return reply.code(201).send(await files.create(request.params.id, actor, request.params.file_path, input));
    });

    api.put<{ Params: FilePath }>(base, writes, async (request) => {
      const actor = requireActor(request);
      const input = writeInput(paramsOf(request), 'update');
      return files.update(request.params.id, actor, request.params.file_path, input);
    });

    api.delete<{ Params: FilePath }>(base, writes, async (request, reply) => {
      const actor = requireActor(request);
      const input = writeInput(paramsOf(request), 'delete');
      await files.delete(request.params.id, actor, request.params.file_path, input);
      return reply.code(204).send();
    });
  };
}

function writeInput(params: Params, kind: 'create' | 'update' | 'delete'): FileWriteInput {
  const branch = params.requiredString('branch');
  const content = kind === 'delete' ? undefined : decodeContent(params, 'content', 'encoding', true);
  return {
    branch,
    commitMessage: params.requiredString('commit_message'),
    content,
    startBranch: params.string('start_branch') || undefined,
    authorName: params.string('author_name') || undefined,
    authorEmail: params.string('author_email') || undefined,
    executeFilemode: params.bool('execute_filemode'),
    lastCommitId: kind === 'create' ? undefined : params.string('last_commit_id') || undefined,
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
function lineRange(params: Params): { start: number; end: number } | undefined {
  const range = params.hash('range');
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
