import { sql } from '#deps/kysely';
import { countAll, type Db } from '../database.ts';
import type { MergeRequestIssueLink, MergeRequestIssueLinksStore, MergeRequestRecord } from '../../types-merge-requests.ts';
import { toMergeRequest } from './merge-requests.ts';

export class SqlMergeRequestIssueLinksStore implements MergeRequestIssueLinksStore {
  constructor(private readonly db: Db) {}

  /** An issue deleted since it was read is left out (selected from `issues`), rather than failing the save that links it. */
  async replace(mergeRequestId: number, links: readonly MergeRequestIssueLink[], readAtVersion?: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      if (readAtVersion !== undefined) {
        const current = await trx.selectFrom('merge_requests').select('lock_version').where('id', '=', mergeRequestId).executeTakeFirst();
        if (!current || Number(current.lock_version) !== readAtVersion) return false;
      }
      await trx.deleteFrom('merge_request_issue_links').where('merge_request_id', '=', mergeRequestId).execute();
      for (const closes of [0, 1]) {
        const issueIds = [...new Set(links.filter((link) => Number(link.closes) === closes).map((link) => link.issueId))];
        if (issueIds.length === 0) continue;
        const existing = trx.selectFrom('issues').select([sql<number>`cast(${mergeRequestId} as integer)`.as('merge_request_id'), 'id as issue_id', sql<number>`cast(${closes} as integer)`.as('closes')]).where('id', 'in', issueIds);
        await trx.insertInto('merge_request_issue_links').columns(['merge_request_id', 'issue_id', 'closes']).expression(existing).execute();
      }
      return true;
    });
  }

  async closingCounts(issueIds: readonly number[]): Promise<Map<number, number>> {
    if (issueIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('merge_request_issue_links')
      .select(['issue_id', countAll().as('total')])
      .where('issue_id', 'in', [...new Set(issueIds)])
      .where('closes', '=', 1)
      .groupBy('issue_id')
      .execute();
    return new Map(rows.map((row) => [Number(row.issue_id), Number(row.total)]));
  }

  async mergeRequestsAfter(afterId: number, limit: number): Promise<MergeRequestRecord[]> {
    const rows = await this.db.selectFrom('merge_requests').selectAll().where('id', '>', afterId).orderBy('id').limit(limit).execute();
    return rows.map(toMergeRequest);
  }
}
