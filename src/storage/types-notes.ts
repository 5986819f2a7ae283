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

export interface NotesStore {
  create(note: NewNote): Promise<NoteRecord>;
}
