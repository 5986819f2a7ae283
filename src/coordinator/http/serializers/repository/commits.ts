import type { GitCommit, GitCommitStats, GitFileDiff } from '../../../../storage/git/types.ts';
import type { CommitCommentRecord } from '../../../../storage/types-commit-comments.ts';
import type { UserRecord } from '../../../../storage/types.ts';
import type { CommitDetail, LastPipeline } from '../../../services/repository/commits.ts';
import { serializeUserBasic, type UserBasicJson } from '../user-basic.ts';

/** Where a commit's web page is: `<external>/<full path>/-/commit/<sha>`. */
export interface CommitUrlBase {
  externalUrl: string;
  projectFullPath: string;
}

export interface CommitJson {
  id: string;
  short_id: string;
  created_at: string;
  parent_ids: string[];
  title: string;
  message: string;
  author_name: string;
  author_email: string;
  authored_date: string;
  committer_name: string;
  committer_email: string;
  committed_date: string;
  web_url: string;
}

/** The pipeline summary a commit detail shows; null until pipelines exist for the commit. */
export type LastPipelineJson = LastPipeline;

export interface CommitDetailJson extends CommitJson {
  stats?: GitCommitStats;
  status: string | null;
  project_id: number;
  last_pipeline: LastPipelineJson | null;
}

export function serializeCommit(commit: GitCommit, base: CommitUrlBase): CommitJson {
  return {
    id: commit.id,
    short_id: commit.id.slice(0, 8),
    created_at: commit.committer.date,
    parent_ids: commit.parent_ids,
    title: commit.title,
    message: commit.message,
    author_name: commit.author.name,
    author_email: commit.author.email,
    authored_date: commit.author.date,
    committer_name: commit.committer.name,
    committer_email: commit.committer.email,
    committed_date: commit.committer.date,
    web_url: `${base.externalUrl}/${base.projectFullPath}/-/commit/${commit.id}`,
  };
}

export function serializeCommitWithStats(commit: GitCommit, stats: GitCommitStats, base: CommitUrlBase): CommitJson & { stats: GitCommitStats } {
  return { ...serializeCommit(commit, base), stats };
}

export function serializeCommitDetail(
  commit: GitCommit,
  detail: CommitDetail,
  base: CommitUrlBase,
): CommitDetailJson {
  return {
    ...serializeCommit(commit, base),
    ...(detail.stats ? { stats: detail.stats } : {}),
    status: detail.lastPipeline?.status ?? null,
    project_id: detail.projectId,
    last_pipeline: detail.lastPipeline,
  };
}

export interface DiffJson {
  diff: string;
  collapsed: boolean;
  too_large: boolean;
  new_path: string;
  old_path: string;
  a_mode: string | null;
  b_mode: string | null;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
}

/** GitLab's Entities::Diff: `diff` is empty when the file was collapsed or too large. */
export function serializeDiff(diff: GitFileDiff): DiffJson {
  return {
    diff: diff.diff,
    collapsed: diff.collapsed,
    too_large: diff.too_large,
    new_path: diff.new_path,
    old_path: diff.old_path,
    a_mode: diff.a_mode,
    b_mode: diff.b_mode,
    new_file: diff.new_file,
    renamed_file: diff.renamed_file,
    deleted_file: diff.deleted_file,
  };
}

export interface CommitCommentJson {
  note: string;
  path: string | null;
  line: number | null;
  line_type: string | null;
  author: UserBasicJson | null;
  created_at: string;
}

export function serializeCommitComment(comment: CommitCommentRecord, author: UserRecord | undefined, externalUrl: string): CommitCommentJson {
  return {
    note: comment.note,
    path: comment.path,
    line: comment.line,
    line_type: comment.line_type,
    author: author ? serializeUserBasic(author, externalUrl) : null,
    created_at: comment.created_at,
  };
}
