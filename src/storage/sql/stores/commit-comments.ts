import type { CommitCommentRecord, CommitCommentsStore, NewCommitComment } from '../../types-commit-comments.ts';
import type { Db } from '../database.ts';
import type { CommitCommentsTable } from '../schema-commit-comments.ts';

type Row = Omit<CommitCommentsTable, 'id'> & { id: number };

function toRecord(row: Row): CommitCommentRecord {
  const lineType = row.line_type === 'new' || row.line_type === 'old' ? row.line_type : null;
  return { ...row, line_type: lineType };
}

export class SqlCommitCommentsStore implements CommitCommentsStore {
  constructor(private readonly db: Db) {}

  async create(comment: NewCommitComment): Promise<CommitCommentRecord> {
    const row = await this.db.insertInto('commit_comments').values(comment).returningAll().executeTakeFirstOrThrow();
    return toRecord(row);
  }

  async list(projectId: number, commitId: string, page: { offset: number; limit: number }): Promise<CommitCommentRecord[]> {
    const rows = await this.db
      .selectFrom('commit_comments')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('commit_id', '=', commitId)
      .orderBy('created_at')
      .orderBy('id')
      .offset(page.offset)
      .limit(page.limit)
      .execute();
    return rows.map(toRecord);
  }

  async count(projectId: number, commitId: string): Promise<number> {
    const row = await this.db
      .selectFrom('commit_comments')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('project_id', '=', projectId)
      .where('commit_id', '=', commitId)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }
}
