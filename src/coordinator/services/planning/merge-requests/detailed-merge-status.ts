import { isDraftTitle, type MergeRequestRecord } from '../../../../storage/types-merge-requests.ts';
import type { CiMergeCheck } from './ci-merge-check.ts';

/** What `detailed_merge_status` needs besides the record: the threads rule, GitLab's `should_be_rebased?` and its CI check. */
export interface MergeChecks {
  blockingDiscussionsResolved: boolean;
  /** The project merges only fast-forwardable sources and the target has commits the head lacks (rebase-status.ts). */
  needsRebase: boolean;
  /** The project's `only_allow_merge_if_pipeline_succeeds` against the head pipeline (ci-merge-check.ts). */
  ciCheck: CiMergeCheck;
}

/**
 * GitLab's `detailed_merge_status`, from what is stored: the state, a draft title, the last
 * merge check, when the project requires them resolved the unresolved threads, (GitLab's
 * rebase check, after the others) whether a fast-forward-only project needs the source rebased,
 * and last, as GitLab 16's DetailedMergeStatusService runs it once everything else passed, the
 * CI check: `ci_still_running` while a required head pipeline is active, `ci_must_pass` when it
 * is missing or did not succeed. The API's answers and the webhooks' payloads both say it.
 */
export function detailedMergeStatus(record: MergeRequestRecord, checks: MergeChecks): string {
  if (record.state !== 'opened') return 'not_open';
  // A recheck not yet begun is as unchecked as any (GitLab shows `checking` once the check runs).
  if (record.merge_status === 'unchecked' || record.merge_status === 'cannot_be_merged_recheck') return 'unchecked';
  if (record.merge_status === 'checking' || record.merge_status === 'cannot_be_merged_rechecking') return 'checking';
  if (isDraftTitle(record.title)) return 'draft_status';
  if (record.merge_status === 'cannot_be_merged') return 'broken_status';
  if (!checks.blockingDiscussionsResolved) return 'discussions_not_resolved';
  if (checks.needsRebase) return 'need_rebase';
  if (checks.ciCheck === 'running') return 'ci_still_running';
  return checks.ciCheck === 'failed' ? 'ci_must_pass' : 'mergeable';
}
