/** What turning commit messages into issue notes and closings needs of storage. */

export interface CommitReferencesStore {
  /** Whether the issue already carries a system note with exactly this body (a reference made once stays once). */
  hasIssueSystemNote(issueId: number, body: string): Promise<boolean>;
  /** Whether `authorId` already wrote a (non-system) note with exactly this body on the issue (a task comment made once stays once). */
  hasIssueComment(issueId: number, authorId: number, body: string): Promise<boolean>;
  /** Closes the issue if it is still open (compare-and-set); false when it was not. */
  closeOpenIssue(issueId: number, closedById: number, at: string): Promise<boolean>;
}
