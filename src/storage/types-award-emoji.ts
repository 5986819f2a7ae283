/** Award emoji on issues, merge requests and their notes: one person's reaction. */
import type { Page } from './types-ci.ts';
import type { NoteableType, NoteRecord } from './types-notes.ts';

export type AwardableType = 'Issue' | 'MergeRequest' | 'Note';

export interface AwardableRef {
  type: AwardableType;
  id: number;
}

export interface AwardEmojiRecord {
  id: number;
  name: string;
  user_id: number;
  awardable_type: AwardableType;
  awardable_id: number;
  created_at: string;
  updated_at: string;
}

export type NewAwardEmoji = Omit<AwardEmojiRecord, 'id'>;

/** Thumbs up and thumbs down of one issue or merge request. */
export interface IssueVotes {
  upvotes: number;
  downvotes: number;
}

export interface AwardEmojiStore {
  /** Oldest first. */
  list(awardable: AwardableRef, page: Page): Promise<{ items: AwardEmojiRecord[]; total: number }>;
  /** The award of that id, if it is on this awardable. */
  find(awardable: AwardableRef, awardId: number): Promise<AwardEmojiRecord | undefined>;
  /** Undefined when the user already awarded that name there. */
  create(award: NewAwardEmoji): Promise<AwardEmojiRecord | undefined>;
  delete(id: number): Promise<boolean>;
  /** One statement: each issue's (or merge request's) thumbs up and thumbs down (those without any are absent). */
  votesOf(ids: readonly number[], awardableType?: NoteableType): Promise<Map<number, IssueVotes>>;
  /** A note of this issue or merge request by id (for awarding it), whoever wrote it; undefined when it is another's. */
  findNote(noteableType: NoteableType, noteableId: number, noteId: number): Promise<NoteRecord | undefined>;
}
