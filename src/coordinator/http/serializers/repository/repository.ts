import { createHash } from 'node:crypto';
import path from 'node:path';
import type { GitContributor, GitTreeEntry } from '../../../../storage/git/types.ts';
import type { Blob, Comparison } from '../../../services/repository/browsing.ts';
import type { FileWriteResult, RepositoryFile } from '../../../services/repository/files.ts';
import { serializeCommit, serializeDiff, type CommitJson, type CommitUrlBase, type DiffJson } from './commits.ts';

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

export function serializeRepositoryFile(file: RepositoryFile): RepositoryFileJson {
  return {
    file_name: path.posix.basename(file.blob.path),
    file_path: file.blob.path,
    size: file.blob.size,
    encoding: 'base64',
    content_sha256: createHash('sha256').update(file.content).digest('hex'),
    ref: file.ref,
    blob_id: file.blob.id,
    commit_id: file.commitId,
    last_commit_id: file.lastCommitId,
    content: file.content.toString('base64'),
  };
}

/** What create, update and delete answer (file_name kept for older clients: it is the full path). */
export function serializeFileWrite(result: FileWriteResult): { file_name: string; file_path: string; branch: string } {
  return { file_name: result.filePath, file_path: result.filePath, branch: result.branch };
}

export function serializeBlob(blob: Blob): { size: number; encoding: 'base64'; content: string; sha: string } {
  return { size: blob.content.length, encoding: 'base64', content: blob.content.toString('base64'), sha: blob.sha };
}

export function serializeTreeEntry({ id, name, type, path: entryPath, mode }: GitTreeEntry) {
  return { id, name, type, path: entryPath, mode };
}

export function serializeContributor({ name, email, commits, additions, deletions }: GitContributor) {
  return { name, email, commits, additions, deletions };
}

export interface ComparisonJson {
  commit: CommitJson | null;
  commits: CommitJson[];
  diffs: DiffJson[];
  compare_timeout: boolean;
  compare_same_ref: boolean;
}

export function serializeComparison(comparison: Comparison, base: CommitUrlBase): ComparisonJson {
  const commits = comparison.commits.map((commit) => serializeCommit(commit, base));
  return { commit: commits.at(-1) ?? null, commits, diffs: comparison.diffs.map(serializeDiff), compare_timeout: false, compare_same_ref: comparison.sameRef };
}
