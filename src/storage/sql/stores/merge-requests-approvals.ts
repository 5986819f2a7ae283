import type { MergeRequestApprovalRecord, MergeRequestApprovalsStore } from '../../types-merge-request-approvals.ts';
import type { Db } from '../database.ts';

export class SqlMergeRequestApprovalsStore implements MergeRequestApprovalsStore {
  constructor(private readonly db: Db) {}

  async approve(mergeRequestId: number, userId: number, at: string): Promise<boolean> {
    // The unique (request, user) pair settles two approvals racing: one row, one `true`.
    const inserted = await this.db
      .insertInto('merge_request_approvals')
      .values({ merge_request_id: mergeRequestId, user_id: userId, created_at: at })
      .onConflict((conflict) => conflict.columns(['merge_request_id', 'user_id']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  async unapprove(mergeRequestId: number, userId: number): Promise<boolean> {
    const result = await this.db.deleteFrom('merge_request_approvals').where('merge_request_id', '=', mergeRequestId).where('user_id', '=', userId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async of(mergeRequestId: number): Promise<MergeRequestApprovalRecord[]> {
    return this.db
      .selectFrom('merge_request_approvals')
      .select(['merge_request_id', 'user_id', 'created_at'])
      .where('merge_request_id', '=', mergeRequestId)
      .orderBy('id')
      .execute();
  }
}
