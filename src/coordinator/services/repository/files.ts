import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { GantryError } from '../../../shared/errors.ts';
import type { GitBlameLine, GitBlobInfo, GitFileAction } from '../../../storage/git/types.ts';
import type { UserRecord } from '../../../storage/types.ts';
import type { CoordinatorContext } from '../../context.ts';
import { RepositoryAccess, type ReadableRepository } from './access.ts';
import { isInsideRepository, refuseTraversal } from './paths.ts';
import { RepositoryWriter } from './writes.ts';

export interface RepositoryFileJson {
  file_name: string;
  file_path: string;
  size: number;
  encoding: 'base64';
  content_sha256: string;
  ref: string;
  blob_id: string;
  commit_id: string;
  last_commit_id: string;
  content: string;
}

export interface FileWriteInput {
  branch: string;
  startBranch?: string;
  commitMessage: string;
  authorName?: string;
  authorEmail?: string;
  /** create/update only. */
  content?: Buffer;
  executeFilemode?: boolean;
  lastCommitId?: string;
}

/** What create, update and delete answer (file_name kept for older clients: it is the full path). */
export interface FileWriteResult {
  file_name: string;
  file_path: string;
  branch: string;
}

export interface RawBlob {
  blob: GitBlobInfo;
  stream: Readable;
}

/** `/projects/:id/repository/files/:file_path`: one file at a ref, raw content, and single-file commits. */
export class FilesService {
  readonly access: RepositoryAccess;
  private readonly writer: RepositoryWriter;

  constructor(context: CoordinatorContext) {
    this.access = new RepositoryAccess(context);
    this.writer = new RepositoryWriter(context, this.access);
  }

  async get(target: ReadableRepository, filePath: string, ref: string): Promise<RepositoryFileJson> {
    const { repository, commitId, blob } = await this.locate(target, filePath, ref);
    const [content, lastCommit] = await Promise.all([repository.readBlob(blob.id), repository.lastCommitFor(commitId, blob.path)]);
    if (!content) throw new GantryError('GANTRY_E_FILE_NOT_FOUND');
    return {
      file_name: path.posix.basename(blob.path),
      file_path: blob.path,
      size: blob.size,
      encoding: 'base64',
      content_sha256: createHash('sha256').update(content).digest('hex'),
      ref,
      blob_id: blob.id,
      commit_id: commitId,
      last_commit_id: lastCommit?.id ?? commitId,
      content: content.toString('base64'),
    };
  }

  /** The blob at a path, streamed. */
  async raw(target: ReadableRepository, filePath: string, ref: string): Promise<RawBlob> {
    const { repository, blob } = await this.locate(target, filePath, ref);
    return { blob, stream: repository.streamBlob(blob.id, blob.size) };
  }

  /**
   * The file's lines (within `range`, 1-based inclusive) with the commit that last changed
   * each, streamed; 404 Commit Not Found for an unknown ref, File Not Found for a missing file.
   */
  async blame(target: ReadableRepository, filePath: string, ref: string, range?: { start: number; end: number }): Promise<AsyncIterable<GitBlameLine[]>> {
    refuseTraversal('file_path', filePath);
    const repository = target.repository;
    const commitId = repository ? await repository.resolveCommit(ref) : null;
    if (!repository || !commitId) throw new GantryError('GANTRY_E_COMMIT_NOT_FOUND');
    const lines = isInsideRepository(filePath) ? await repository.blame(commitId, filePath, range) : null;
    if (!lines) throw new GantryError('GANTRY_E_FILE_NOT_FOUND');
    return lines;
  }

  async create(projectRef: string, actor: UserRecord, filePath: string, input: FileWriteInput): Promise<FileWriteResult> {
    const action: GitFileAction = { action: 'create', file_path: filePath, content: input.content ?? Buffer.alloc(0), execute_filemode: input.executeFilemode };
    return this.write(projectRef, actor, filePath, input, action);
  }

  async update(projectRef: string, actor: UserRecord, filePath: string, input: FileWriteInput): Promise<FileWriteResult> {
    const action: GitFileAction = {
      action: 'update',
      file_path: filePath,
      content: input.content ?? Buffer.alloc(0),
      last_commit_id: input.lastCommitId,
      execute_filemode: input.executeFilemode,
    };
    return this.write(projectRef, actor, filePath, input, action);
  }

  async delete(projectRef: string, actor: UserRecord, filePath: string, input: FileWriteInput): Promise<FileWriteResult> {
    return this.write(projectRef, actor, filePath, input, { action: 'delete', file_path: filePath, last_commit_id: input.lastCommitId });
  }

  private async write(projectRef: string, actor: UserRecord, filePath: string, input: FileWriteInput, action: GitFileAction): Promise<FileWriteResult> {
    const target = await this.access.forWrite(projectRef, actor);
    await this.writer.commit(target, {
      branch: input.branch,
      startBranch: input.startBranch,
      message: input.commitMessage,
      authorName: input.authorName,
      authorEmail: input.authorEmail,
      actions: [action],
    });
    return { file_name: filePath, file_path: filePath, branch: input.branch };
  }

  /** GANTRY_E_COMMIT_NOT_FOUND for an unknown ref (or an empty repository), GANTRY_E_FILE_NOT_FOUND for a missing path. */
  private async locate(target: ReadableRepository, filePath: string, ref: string) {
    refuseTraversal('file_path', filePath);
    const repository = target.repository;
    const commitId = repository ? await repository.resolveCommit(ref) : null;
    if (!repository || !commitId) throw new GantryError('GANTRY_E_COMMIT_NOT_FOUND');
    const blob = isInsideRepository(filePath) ? await repository.blobAt(commitId, filePath) : null;
    if (!blob) throw new GantryError('GANTRY_E_FILE_NOT_FOUND');
    return { repository, commitId, blob };
  }
}
