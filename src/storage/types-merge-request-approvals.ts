/** Who approved a merge request (GitLab CE's approvals: no rules, no required count). */
export interface MergeRequestApprovalRecord {
  merge_request_id: number;
  user_id: number;
  created_at: string;
}

export interface MergeRequestApprovalsStore {
  /** Records the approval; false when that user had approved already (one statement). */
  approve(mergeRequestId: number, userId: number, at: string): Promise<boolean>;
  /** Removes it; false when there was none. */
  unapprove(mergeRequestId: number, userId: number): Promise<boolean>;
  /** The request's approvals, oldest first. */
  of(mergeRequestId: number): Promise<MergeRequestApprovalRecord[]>;
}
