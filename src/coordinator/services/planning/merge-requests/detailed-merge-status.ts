import { isDraftTitle, type MergeRequestRecord } from '../../../../storage/types-merge-requests.ts';

/**
 * GitLab 15.6's `detailed_merge_status`, from what is stored: the state, a draft title, the last
 * merge check and, when the project requires them resolved, the unresolved threads. The API's
 * answers and the webhooks' payloads both say it.
 */
export function detailedMergeStatus(record: MergeRequestRecord, blockingDiscussionsResolved: boolean): string {
  if (record.state !== 'opened') return 'not_open';
  // A recheck not yet begun is as unchecked as any (GitLab shows `checking` once the check runs).
  if (record.merge_status === 'unchecked' || record.merge_status === 'cannot_be_merged_recheck') return 'unchecked';
  if (record.merge_status === 'checking' || record.merge_status === 'cannot_be_merged_rechecking') return 'checking';
  if (isDraftTitle(record.title)) return 'draft_status';
  if (record.merge_status !== 'cannot_be_merged' && !blockingDiscussionsResolved) return 'discussions_not_resolved';
  return record.merge_status === 'cannot_be_merged' ? 'broken_status' : 'mergeable';
}
