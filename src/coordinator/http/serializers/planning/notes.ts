import type { NoteView } from '../../../services/planning/notes.ts';
import { isResolvableNote, type DiffPosition, type NoteType } from '../../../../storage/types-notes.ts';
import { serializeUserBasic, type UserBasicJson } from '../user-basic.ts';

/** GitLab's Note entity: `position` on DiffNotes, the resolution fields on resolvable notes only. */
export interface NoteJson {
  id: number;
  type: NoteType;
  body: string;
  attachment: null;
  author: UserBasicJson | null;
  created_at: string;
  updated_at: string;
  system: boolean;
  noteable_id: number;
  noteable_type: string;
  project_id: number;
  commit_id?: null;
  position?: DiffPosition & { line_range: null };
  resolvable: boolean;
  resolved?: boolean;
  resolved_by?: UserBasicJson | null;
  resolved_at?: string | null;
  confidential: boolean;
  internal: boolean;
  noteable_iid: number;
  commands_changes: Record<string, never>;
}

/** GitLab's Discussion entity: a thread and its notes, oldest first. */
export interface DiscussionJson {
  id: string;
  individual_note: boolean;
  notes: NoteJson[];
}

export function serializeNote(view: NoteView, externalUrl: string): NoteJson {
  const { note } = view;
  const resolvable = isResolvableNote(note);
  return {
    id: note.id,
    type: note.type,
    body: note.body,
    attachment: null,
    author: view.author ? serializeUserBasic(view.author, externalUrl) : null,
    created_at: note.created_at,
    updated_at: note.updated_at,
    system: note.system,
    noteable_id: note.noteable_id,
    noteable_type: note.noteable_type,
    project_id: note.project_id,
    ...(note.type === 'DiffNote' && note.position ? { commit_id: null, position: { ...note.position, line_range: null } } : {}),
    resolvable,
    ...(resolvable
      ? { resolved: note.resolved_at !== null, resolved_by: view.resolvedBy ? serializeUserBasic(view.resolvedBy, externalUrl) : null, resolved_at: note.resolved_at }
      : {}),
    confidential: note.internal,
    internal: note.internal,
    noteable_iid: view.noteableIid,
    commands_changes: {},
  };
}

export function serializeDiscussion(discussion: { id: string; individualNote: boolean; notes: readonly NoteView[] }, externalUrl: string): DiscussionJson {
  return { id: discussion.id, individual_note: discussion.individualNote, notes: discussion.notes.map((view) => serializeNote(view, externalUrl)) };
}
