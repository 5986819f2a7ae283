export type CommitCommentLineType = 'new' | 'old';

export interface CommitCommentRecord {
  id: number;
  project_id: number;
  /** Full SHA of the commented commit. */
  commit_id: string;
  author_id: number;
  note: string;
  /** Set only when the comment is attached to a line of the commit's diff. */
  path: string | null;
  line: number | null;
  line_type: CommitCommentLineType | null;
  created_at: string;
}

export type NewCommitComment = Omit<CommitCommentRecord, 'id'>;

export interface CommitCommentsStore {
  create(comment: NewCommitComment): Promise<CommitCommentRecord>;
  /** Oldest first, one page. */
  list(projectId: number, commitId: string, page: { offset: number; limit: number }): Promise<CommitCommentRecord[]>;
  count(projectId: number, commitId: string): Promise<number>;
}
