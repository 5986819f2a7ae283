import { isDraftTitle, type MergeRequestRecord } from '../../../../storage/types-merge-requests.ts';

/** What `detailed_merge_status` needs besides the record: the threads rule and GitLab's `should_be_rebased?`. */
export interface MergeChecks {
  blockingDiscussionsResolved: boolean;
  /** The project merges only fast-forwardable sources and the target has commits the head lacks (rebase-status.ts). */
  needsRebase: boolean;
}

/**
 * GitLab 15.6's `detailed_merge_status`, from what is stored: the state, a draft title, the last
 * merge check, when the project requires them resolved the unresolved threads, and (GitLab's
 * rebase check, after the others) whether a fast-forward-only project needs the source rebased.
 * The API's answers and the webhooks' payloads both say it.
 */
export function detailedMergeStatus(record: MergeRequestRecord, checks: MergeChecks): string {
  if (record.state !== 'opened') return 'not_open';
  // A recheck not yet begun is as unchecked as any (GitLab shows `checking` once the check runs).
  if (record.merge_status === 'unchecked' || record.merge_status === 'cannot_be_merged_recheck') return 'unchecked';
  if (record.merge_status === 'checking' || record.merge_status === 'cannot_be_merged_rechecking') return 'checking';
  if (isDraftTitle(record.title)) return 'draft_status';
  if (record.merge_status === 'cannot_be_merged') return 'broken_status';
  if (!checks.blockingDiscussionsResolved) return 'discussions_not_resolved';
  return checks.needsRebase ? 'need_rebase' : 'mergeable';
}
