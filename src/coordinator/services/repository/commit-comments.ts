import type { GitClient, GitDiffStream, GitFileDiff } from '../../../storage/git/types.ts';
import type { CommitCommentLineType, CommitCommentRecord, CommitCommentsStore } from '../../../storage/types-commit-comments.ts';
import type { UserRecord, UsersStore } from '../../../storage/types.ts';
import { checkLengths, MAX_TEXT_SIZE, type FieldLimits } from '../field-limits.ts';
import type { Actor } from '../access/permissions.ts';
import type { ReadableRepository } from './access.ts';
import type { CommitsService } from './commits.ts';
import type { Page, Paged } from './pages.ts';
import { findCommentLine } from './diff-lines.ts';

/** GitLab's Note validation: 1,000,000 characters. */
export const COMMIT_COMMENT_LIMITS = { note: MAX_TEXT_SIZE } as const satisfies FieldLimits;

export interface CommentInput {
  note: string;
  /** path, line and lineType come together (the route requires line and line_type with path). */
  position?: { path: string; line: number; lineType: CommitCommentLineType };
}

export interface CommitCommentView {
  comment: CommitCommentRecord;
  author: UserRecord | undefined;
}

export interface CommitCommentsServiceDeps {
  commits: Pick<CommitsService, 'readable' | 'find'>;
  commitComments: Pick<CommitCommentsStore, 'list' | 'count' | 'create'>;
  users: Pick<UsersStore, 'findByIds'>;
}

/** Comments on commits. A position that names no line of the commit's diff leaves the comment on the commit itself. */
export class CommitCommentsService {
  constructor(private readonly deps: CommitCommentsServiceDeps) {}

  async list(projectRef: string, actor: Actor, sha: string, page: Page): Promise<Paged<CommitCommentView>> {
    const target = await this.deps.commits.readable(projectRef, actor);
    const commit = await this.deps.commits.find(target, sha);
    const store = this.deps.commitComments;
    const [comments, total] = await Promise.all([store.list(target.project.id, commit.id, page), store.count(target.project.id, commit.id)]);
    const authors = await this.authors(comments);
    return { items: comments.map((comment) => ({ comment, author: authors.get(comment.author_id) })), total };
  }

  /** `client` is what reading the commit's diff queues under. */
  async create(projectRef: string, actor: UserRecord, sha: string, input: CommentInput, client?: GitClient): Promise<CommitCommentView> {
    const target = await this.deps.commits.readable(projectRef, actor, client);
    return { comment: await this.comment(target, actor, sha, input), author: actor };
  }

  private async comment(target: ReadableRepository, actor: UserRecord, sha: string, input: CommentInput): Promise<CommitCommentRecord> {
    checkLengths(COMMIT_COMMENT_LIMITS, { note: input.note });
    const commit = await this.deps.commits.find(target, sha);
    let attached: { path: string; line: number; lineType: CommitCommentLineType } | null = null;
    if (input.position && target.repository) {
      const { path, line, lineType } = input.position;
      const fileDiff = await findFileDiff(await target.repository.commitDiff(commit.id, { expanded: true }), path);
      const shownLine = fileDiff ? findCommentLine(fileDiff.diff, line, lineType) : null;
      if (shownLine !== null) attached = { path, line: shownLine, lineType };
    }
    return this.deps.commitComments.create({
      project_id: target.project.id,
      commit_id: commit.id,
      author_id: actor.id,
      note: input.note,
      path: attached?.path ?? null,
      line: attached?.line ?? null,
      line_type: attached?.lineType ?? null,
      created_at: new Date().toISOString(),
    });
  }

  private async authors(comments: readonly CommitCommentRecord[]): Promise<Map<number, UserRecord>> {
    const users = await this.deps.users.findByIds([...new Set(comments.map((comment) => comment.author_id))]);
    return new Map(users.map((user) => [user.id, user]));
  }
}

/** The file's entry in a diff; reading stops (and git with it) once it is found. */
async function findFileDiff(diffs: GitDiffStream, path: string): Promise<GitFileDiff | null> {
  try {
    for await (const diff of diffs) {
      if (diff.new_path === path) return diff;
    }
    return null;
  } finally {
    diffs.close();
  }
}
