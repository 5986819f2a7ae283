import type { IssueRecord, IssueRelations, NewIssue } from './types-planning.ts';

/** A move: the copy to create in the target project, and who moved the original when. */
export interface IssueMoveWrite {
  original: Pick<IssueRecord, 'id'>;
  copy: NewIssue;
  relations: IssueRelations;
  movedBy: number;
  at: string;
}

export interface IssueMovesStore {
  /**
   * In one transaction: the copy with the target's next iid, its labels and assignees, copies of
   * the original's notes (authors and times kept) and award emoji, and the original closed (if
   * open) with `moved_to_id` set. Undefined, with nothing written, when the original was moved
   * meanwhile.
   */
  move(write: IssueMoveWrite): Promise<IssueRecord | undefined>;
}
