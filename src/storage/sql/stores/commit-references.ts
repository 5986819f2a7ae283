import type { CommitReferencesStore } from '../../types-references.ts';
import type { Db } from '../database.ts';

export class SqlCommitReferencesStore implements CommitReferencesStore {
  constructor(private readonly db: Db) {}

  async hasIssueSystemNote(issueId: number, body: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('notes')
      .select('id')
      .where('noteable_type', '=', 'Issue')
      .where('noteable_id', '=', issueId)
      .where('system', '=', 1)
      .where('body', '=', body)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async hasIssueComment(issueId: number, authorId: number, body: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('notes')
      .select('id')
      .where('noteable_type', '=', 'Issue')
      .where('noteable_id', '=', issueId)
      .where('system', '=', 0)
      .where('author_id', '=', authorId)
      .where('body', '=', body)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async closeOpenIssue(issueId: number, closedById: number, at: string): Promise<boolean> {
    const result = await this.db
      .updateTable('issues')
      .set({ state: 'closed', closed_at: at, closed_by_id: closedById, updated_at: at })
      .where('id', '=', issueId)
      .where('state', '=', 'opened')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
