import type { Selectable } from '#deps/kysely';
import { countAll, type Db } from '../database.ts';
import type { MergeRequestDiffVersionsTable } from '../schema-merge-requests.ts';
import type { Page } from '../../types-ci.ts';
import type { DiffVersionState, MergeRequestDiffVersionRecord, MergeRequestDiffVersionsStore, NewMergeRequestDiffVersion } from '../../types-merge-request-diff-versions.ts';

export class SqlMergeRequestDiffVersionsStore implements MergeRequestDiffVersionsStore {
  constructor(private readonly db: Db) {}

  async add(version: NewMergeRequestDiffVersion): Promise<MergeRequestDiffVersionRecord> {
    const row = await this.db.insertInto('merge_request_diff_versions').values(version).returningAll().executeTakeFirstOrThrow();
    return toVersion(row);
  }

  async latest(mergeRequestId: number): Promise<MergeRequestDiffVersionRecord | undefined> {
    const row = await this.db.selectFrom('merge_request_diff_versions').selectAll().where('merge_request_id', '=', mergeRequestId).orderBy('id', 'desc').limit(1).executeTakeFirst();
    return row && toVersion(row);
  }

  async list(mergeRequestId: number, page: Page): Promise<{ items: MergeRequestDiffVersionRecord[]; total: number }> {
    const ofRequest = this.db.selectFrom('merge_request_diff_versions').where('merge_request_id', '=', mergeRequestId);
    const [rows, total] = await Promise.all([
      ofRequest.selectAll().orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute(),
      ofRequest.select(countAll().as('count')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(toVersion), total: Number(total.count) };
  }

  async find(mergeRequestId: number, id: number): Promise<MergeRequestDiffVersionRecord | undefined> {
    const row = await this.db.selectFrom('merge_request_diff_versions').selectAll().where('id', '=', id).where('merge_request_id', '=', mergeRequestId).executeTakeFirst();
    return row && toVersion(row);
  }

  async fillCollected(id: number, state: DiffVersionState, realSize: string | null): Promise<void> {
    await this.db.updateTable('merge_request_diff_versions').set({ state, real_size: realSize }).where('id', '=', id).where('state', 'is', null).execute();
  }
}

function toVersion(row: Selectable<MergeRequestDiffVersionsTable>): MergeRequestDiffVersionRecord {
  return {
    id: Number(row.id),
    merge_request_id: Number(row.merge_request_id),
    head_commit_sha: row.head_commit_sha,
    base_commit_sha: row.base_commit_sha,
    start_commit_sha: row.start_commit_sha,
    state: row.state as DiffVersionState | null,
    real_size: row.real_size,
    created_at: row.created_at,
  };
}
