/** Notes on issues and merge requests: what people write and what the system records, in threads. */

export type NoteableType = 'Issue' | 'MergeRequest';

/** Null for a plain (individual) note; a thread's notes are `DiscussionNote`s, or `DiffNote`s when started on a diff line. */
export type NoteType = 'DiscussionNote' | 'DiffNote' | null;

/** Where a DiffNote sits: GitLab's text position (the diff refs it was written against, the file and line). */
export interface DiffPosition {
  base_sha: string;
  start_sha: string;
  head_sha: string;
  position_type: 'text';
  old_path: string | null;
  new_path: string | null;
  old_line: number | null;
  new_line: number | null;
}

export interface NoteRecord {
  id: number;
  project_id: number;
  noteable_type: NoteableType;
  noteable_id: number;
  author_id: number;
  body: string;
  /** Written by the system for a change (state, labels, milestone, assignees …), not by a person. */
  system: boolean;
  internal: boolean;
  created_at: string;
  updated_at: string;
  /** The thread: 40 hex characters, unique per note for an individual note. */
  discussion_id: string;
  type: NoteType;
  position: DiffPosition | null;
  resolved_by_id: number | null;
  resolved_at: string | null;
}

/** A note to write: without a discussion id it starts its own thread; without a type it is a plain note. */
export type NewNote = Omit<NoteRecord, 'id' | 'discussion_id' | 'type' | 'position' | 'resolved_by_id' | 'resolved_at'> & {
  discussion_id?: string;
  type?: NoteType;
  position?: DiffPosition | null;
};

/** The notes of one noteable, as a list shows them. */
export interface NoteListFilter {
  noteableType: NoteableType;
  noteableId: number;
  /** Internal notes are left out unless true. */
  includeInternal: boolean;
  orderBy: 'created_at' | 'updated_at';
  sort: 'asc' | 'desc';
}

/** The threads of one noteable. */
export interface DiscussionFilter {
  noteableType: NoteableType;
  noteableId: number;
  includeInternal: boolean;
}

export interface NotesStore {
  create(note: NewNote): Promise<NoteRecord>;
  /** A page and the total, in two statements. */
  list(filter: NoteListFilter, page: { offset: number; limit: number }): Promise<{ items: NoteRecord[]; total: number }>;
  /** The note of that id on that noteable (undefined for a note of another one). */
  findOn(noteableType: NoteableType, noteableId: number, noteId: number): Promise<NoteRecord | undefined>;
  update(id: number, changes: { body: string; updated_at: string }): Promise<NoteRecord | undefined>;
  delete(id: number): Promise<boolean>;
  /** Per noteable of `ids`, how many notes people wrote that everyone who sees it may read (not system, not internal); one statement. */
  userNoteCounts(noteableType: NoteableType, ids: readonly number[]): Promise<Map<number, number>>;
  /** A page of thread ids, oldest thread first (by its first note), and how many threads there are; two statements. */
  discussionIds(filter: DiscussionFilter, page: { offset: number; limit: number }): Promise<{ ids: string[]; total: number }>;
  /** The notes of those threads, oldest first; one statement. */
  notesOfDiscussions(filter: DiscussionFilter, discussionIds: readonly string[]): Promise<NoteRecord[]>;
  /** Makes a plain note the first note of a thread (a reply to it turns it into one, as GitLab). */
  convertToDiscussion(id: number): Promise<void>;
  /** Resolves (`by` set) or unresolves (`by` null) the given resolvable notes; the notes as they are now. */
  setResolved(ids: readonly number[], by: { userId: number; at: string } | null): Promise<NoteRecord[]>;
  /** Per merge request of `ids`, how many of its threads have a resolvable note not resolved; one statement. */
  unresolvedDiscussionCounts(ids: readonly number[]): Promise<Map<number, number>>;
  /** The distinct authors of the notes people wrote (not system) that everyone may read, on one noteable; one statement. */
  authorIdsOf(noteableType: NoteableType, noteableId: number): Promise<number[]>;
}

/** GitLab's `resolvable?`: a person's DiscussionNote or DiffNote on a merge request (the store's resolution queries count the same). */
export function isResolvableNote(note: Pick<NoteRecord, 'noteable_type' | 'type' | 'system'>): boolean {
  return note.noteable_type === 'MergeRequest' && note.type !== null && !note.system;
}
