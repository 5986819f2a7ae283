import type { Db } from '../database.ts';
import type { MergeRequestIssueLink, MergeRequestIssueLinksStore, MergeRequestRecord } from '../../types-merge-requests.ts';
import { toMergeRequest } from './merge-requests.ts';

export class SqlMergeRequestIssueLinksStore implements MergeRequestIssueLinksStore {
  constructor(private readonly db: Db) {}

  async replace(mergeRequestId: number, links: readonly MergeRequestIssueLink[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('merge_request_issue_links').where('merge_request_id', '=', mergeRequestId).execute();
      if (links.length === 0) return;
      const rows = links.map((link) => ({ merge_request_id: mergeRequestId, issue_id: link.issueId, closes: link.closes ? 1 : 0 }));
      await trx.insertInto('merge_request_issue_links').values(rows).execute();
    });
  }

  async mergeRequestsAfter(afterId: number, limit: number): Promise<MergeRequestRecord[]> {
    const rows = await this.db.selectFrom('merge_requests').selectAll().where('id', '>', afterId).orderBy('id').limit(limit).execute();
    return rows.map(toMergeRequest);
  }
}
