import type { NoteView } from '../../../services/planning/notes.ts';
import { serializeUserBasic, type UserBasicJson } from '../user-basic.ts';

/** GitLab's Note entity for a note on an issue (no diff position, never resolvable). */
export interface NoteJson {
  id: number;
  type: null;
  body: string;
  attachment: null;
  author: UserBasicJson | null;
  created_at: string;
  updated_at: string;
  system: boolean;
  noteable_id: number;
  noteable_type: string;
  project_id: number;
  resolvable: false;
  confidential: boolean;
  internal: boolean;
  noteable_iid: number;
  commands_changes: Record<string, never>;
}

export function serializeNote(view: NoteView, externalUrl: string): NoteJson {
  const { note } = view;
  return {
    id: note.id,
    type: null,
    body: note.body,
    attachment: null,
    author: view.author ? serializeUserBasic(view.author, externalUrl) : null,
    created_at: note.created_at,
    updated_at: note.updated_at,
    system: note.system,
    noteable_id: note.noteable_id,
    noteable_type: note.noteable_type,
    project_id: note.project_id,
    resolvable: false,
    confidential: note.internal,
    internal: note.internal,
    noteable_iid: view.noteableIid,
    commands_changes: {},
  };
}
