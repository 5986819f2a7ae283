import { createHash } from 'node:crypto';
import path from 'node:path';
import type { GitContributor, GitTreeEntry } from '../../../../storage/git/types.ts';
import type { Blob, Comparison } from '../../../services/repository/browsing.ts';
import type { FileWriteResult, RepositoryFile } from '../../../services/repository/files.ts';
import { jsonArray } from '../../json-stream.ts';
import { serializeCommit, serializeDiff, type CommitUrlBase } from './commits.ts';

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

/**
 * GitLab's compare answer (`commit`, `commits`, `diffs`, `compare_timeout`,
 * `compare_same_ref`), written as the diff is read so that a large diff is never held whole.
 * GitLab reports a diff that stopped at its totals in `compare_timeout`; `overflow` says the
 * same under GitLab's own name for it. The diff is closed however the writing ends.
 */
export async function* comparisonJson(comparison: Comparison, base: CommitUrlBase): AsyncGenerator<string> {
  const commits = comparison.commits.map((commit) => serializeCommit(commit, base));
  const { diffs } = comparison;
  try {
    yield `{"commit":${JSON.stringify(commits.at(-1) ?? null)},"commits":${JSON.stringify(commits)},"diffs":`;
    yield* jsonArray(diffs, serializeDiff);
  } finally {
    diffs.close();
  }
  yield `,"compare_timeout":${String(diffs.overflow)},"overflow":${String(diffs.overflow)},"compare_same_ref":${String(comparison.sameRef)}}`;
}
