import type { Db } from '../database.ts';
import type { MergeRequestCommitsStore, MergeRequestRecord } from '../../types-merge-requests.ts';
import { toMergeRequest } from './merge-requests.ts';

export class SqlMergeRequestCommitsStore implements MergeRequestCommitsStore {
  constructor(private readonly db: Db) {}

  async bySha(projectId: number, sha: string): Promise<MergeRequestRecord[]> {
    const rows = await this.db
      .selectFrom('merge_requests')
      .selectAll()
      .where('project_id', '=', projectId)
      .where((eb) => eb.or([eb('head_sha', '=', sha), eb('merge_commit_sha', '=', sha), eb('squash_commit_sha', '=', sha)]))
      .orderBy('id')
      .limit(100)
      .execute();
    return rows.map(toMergeRequest);
  }
}
