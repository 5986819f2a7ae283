import type { Readable } from 'node:stream';
import { GantryError } from '../../../shared/errors.ts';
import type { GitBlameLine, GitBlobInfo, GitClient, GitFileAction } from '../../../storage/git/types.ts';
import type { UserRecord } from '../../../storage/types.ts';
import type { Actor } from '../access/permissions.ts';
import type { ReadableRepository, RepositoryAccess } from './access.ts';
import { isInsideRepository, refuseTraversal } from './paths.ts';
import type { RepositoryWriter } from './writes.ts';

/** One file at a ref: its blob, content, and the commits it was read at and last changed in. */
export interface RepositoryFile {
  blob: GitBlobInfo;
  ref: string;
  commitId: string;
  lastCommitId: string;
  content: Buffer;
}

export interface FilesServiceDeps {
  access: Pick<RepositoryAccess, 'forRead' | 'forWrite'>;
  writer: Pick<RepositoryWriter, 'commit'>;
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

/** The file a write touched and the branch it landed on. */
export interface FileWriteResult {
  filePath: string;
  branch: string;
}

export interface BlameInput {
  filePath: string;
  ref: string;
  /** 1-based, inclusive. */
  range?: { start: number; end: number };
}

export interface RawBlob {
  blob: GitBlobInfo;
  stream: Readable;
}

/** `/projects/:id/repository/files/:file_path`: one file at a ref, raw content, and single-file commits. */
export class FilesService {
  constructor(private readonly deps: FilesServiceDeps) {}

  async get(projectRef: string, actor: Actor, filePath: string, ref: string): Promise<RepositoryFile> {
    const target = await this.deps.access.forRead(projectRef, actor);
    const { repository, commitId, blob } = await this.locate(target, filePath, ref);
    const [content, lastCommit] = await Promise.all([repository.readBlob(blob.id), repository.lastCommitFor(commitId, blob.path)]);
    if (!content) throw new GantryError('GANTRY_E_FILE_NOT_FOUND');
    return { blob, ref, commitId, lastCommitId: lastCommit?.id ?? commitId, content };
  }

  /** The blob at a path, streamed. */
  async raw(projectRef: string, actor: Actor, filePath: string, ref: string): Promise<RawBlob> {
    const target = await this.deps.access.forRead(projectRef, actor);
    const { repository, blob } = await this.locate(target, filePath, ref);
    return { blob, stream: repository.streamBlob(blob.id, blob.size) };
  }

  /**
   * The file's lines (within `range`, 1-based inclusive) with the commit that last changed
   * each, streamed; 404 Commit Not Found for an unknown ref, File Not Found for a missing file.
   */
  async blame(projectRef: string, actor: Actor, input: BlameInput, client?: GitClient): Promise<{ target: ReadableRepository; lines: AsyncIterable<GitBlameLine[]> }> {
    const { filePath, ref, range } = input;
    const target = await this.deps.access.forRead(projectRef, actor, client);
    refuseTraversal('file_path', filePath);
    const repository = target.repository;
    const commitId = repository ? await repository.resolveCommit(ref) : null;
    if (!repository || !commitId) throw new GantryError('GANTRY_E_COMMIT_NOT_FOUND');
    const lines = isInsideRepository(filePath) ? await repository.blame(commitId, filePath, range) : null;
    if (!lines) throw new GantryError('GANTRY_E_FILE_NOT_FOUND');
    return { target, lines };
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
    const target = await this.deps.access.forWrite(projectRef, actor);
    await this.deps.writer.commit(target, {
      branch: input.branch,
      startBranch: input.startBranch,
      message: input.commitMessage,
      authorName: input.authorName,
      authorEmail: input.authorEmail,
      actions: [action],
    });
    return { filePath, branch: input.branch };
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
