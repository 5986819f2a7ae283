import type { MergeRequestRecord } from '../../../../storage/types-merge-requests.ts';
import type { UserRecord, UsersStore } from '../../../../storage/types.ts';

/** A merge request and the users its merge fields name (author, merged_by, merge_user), for the answer of the merge routes. */
export interface MergeRequestMergeView {
  record: MergeRequestRecord;
  /** `group/project` of the target project, for web_url and references. */
  fullPath: string;
  users: ReadonlyMap<number, UserRecord>;
}

export async function mergeView(users: Pick<UsersStore, 'findByIds'>, record: MergeRequestRecord, fullPath: string): Promise<MergeRequestMergeView> {
  const ids = [record.author_id, record.merged_by_id, record.merge_user_id, record.closed_by_id].filter((id): id is number => id !== null);
  const found = await users.findByIds(ids);
  return { record, fullPath, users: new Map(found.map((user) => [user.id, user])) };
}
