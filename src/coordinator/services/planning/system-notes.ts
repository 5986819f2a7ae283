import type { NoteableType, NoteRecord, NotesStore } from '../../../storage/types-notes.ts';

/** What a system note is about: an issue (later a merge request) of a project. */
export interface SystemNoteTarget {
  type: NoteableType;
  id: number;
  project_id: number;
}

/**
 * The one way to record a change as a system note ("closed", "added ~1 label", "assigned to
 * @alice" …), worded as GitLab words it; the wording is the caller's, the shape is here.
 */
export class SystemNotes {
  constructor(private readonly deps: { notes: Pick<NotesStore, 'create'> }) {}

  add(target: SystemNoteTarget, authorId: number, body: string, at: string = new Date().toISOString()): Promise<NoteRecord> {
    return this.deps.notes.create({
      project_id: target.project_id,
      noteable_type: target.type,
      noteable_id: target.id,
      author_id: authorId,
      body,
      system: true,
      internal: false,
      created_at: at,
      updated_at: at,
    });
  }
}
