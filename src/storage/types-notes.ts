/** Notes on issues (later merge requests): what people write and what the system records. */

export type NoteableType = 'Issue' | 'MergeRequest';

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
}

export type NewNote = Omit<NoteRecord, 'id'>;

/** The notes of one noteable, as a list shows them. */
export interface NoteListFilter {
  noteableType: NoteableType;
  noteableId: number;
  /** Internal notes are left out unless true. */
  includeInternal: boolean;
  orderBy: 'created_at' | 'updated_at';
  sort: 'asc' | 'desc';
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
}
