import { accessDenied, GantryError, invalidParam } from '../../../shared/errors.ts';
import type { UserRecord, UsersStore } from '../../../storage/types.ts';
import type { DiffPosition, NoteRecord, NotesStore, NoteType } from '../../../storage/types-notes.ts';
import type { PlanningPermissions } from '../access/planning-permissions.ts';
import type { Page, Paged } from '../repository/pages.ts';
import { announceNoteWritten, type IssueObserver } from './issue-observers.ts';
import type { IssueViews } from './issue-views.ts';
import type { MergeRequestNoteObserver, Noteable, NoteableRef, Noteables } from './noteables.ts';

/** The longest note body GitLab stores. */
export const NOTE_BODY_MAX_LENGTH = 1_000_000;

/** A note with what its answer shows. */
export interface NoteView {
  note: NoteRecord;
  author: UserRecord | null;
  noteableIid: number;
  /** Who resolved it (resolvable notes of merge requests only). */
  resolvedBy: UserRecord | null;
}

export interface NewNoteInput {
  body: string;
  internal?: boolean;
  createdAt?: string;
  /** The thread it joins or starts (discussions); without, a plain note in a thread of its own. */
  thread?: { discussionId?: string; type: Exclude<NoteType, null>; position?: DiffPosition | null };
}

export interface NoteListQuery {
  orderBy: 'created_at' | 'updated_at';
  sort: 'asc' | 'desc';
}

export interface NotesServiceDeps {
  notes: NotesStore;
  users: Pick<UsersStore, 'findByIds'>;
  planningPermissions: PlanningPermissions;
  noteables: Pick<Noteables, 'forNotes'>;
  views: Pick<IssueViews, 'one'>;
  /** Told of every note a person writes on an issue (todos for mentions …), in order. */
  observers: readonly IssueObserver[];
  /** The same for notes on merge requests. */
  mergeRequestObservers: readonly MergeRequestNoteObserver[];
}

/**
 * Notes on issues and merge requests: whoever sees one reads its notes (internal ones from
 * Reporters up) and, signed in, writes them (members only while the discussion is locked);
 * authors and Maintainers edit and delete them; system notes are never edited or deleted.
 */
export class NotesService {
  constructor(private readonly deps: NotesServiceDeps) {}

  async list(projectRef: string, actor: UserRecord, ref: NoteableRef, query: NoteListQuery, page: Page): Promise<Paged<NoteView>> {
    const noteable = await this.deps.noteables.forNotes(projectRef, actor, ref);
    const includeInternal = await this.deps.planningPermissions.canReadInternalNotes(noteable.project, actor);
    const { items, total } = await this.deps.notes.list({ noteableType: noteable.type, noteableId: noteable.record.id, includeInternal, ...query }, page);
    return { items: await this.views(items, noteable), total };
  }

  async get(projectRef: string, actor: UserRecord, ref: NoteableRef, noteId: number): Promise<NoteView> {
    const noteable = await this.deps.noteables.forNotes(projectRef, actor, ref);
    const note = await this.readableNote(noteable, actor, noteId);
    return this.view(note, noteable);
  }

  async create(projectRef: string, actor: UserRecord, ref: NoteableRef, input: NewNoteInput): Promise<NoteView> {
    this.checkBody(input.body);
    return this.createOn(await this.deps.noteables.forNotes(projectRef, actor, ref), actor, input);
  }

  /** A note on an issue or merge request already looked up (the discussions routes look it up first). */
  async createOn(noteable: Noteable, actor: UserRecord, input: NewNoteInput): Promise<NoteView> {
    this.checkBody(input.body);
    const { project, record } = noteable;
    const rules = this.deps.planningPermissions;
    if (!(await rules.canCreateNote(project, record, actor))) throw accessDenied();
    if (input.internal && !(await rules.canReadInternalNotes(project, actor))) throw accessDenied();
    const at = input.createdAt !== undefined && (await rules.canBackdateNote(project, actor)) ? input.createdAt : new Date().toISOString();
    const note = await this.deps.notes.create({
      project_id: project.id,
      noteable_type: noteable.type,
      noteable_id: record.id,
      author_id: actor.id,
      body: input.body,
      system: false,
      internal: input.internal ?? false,
      created_at: at,
      updated_at: at,
      discussion_id: input.thread?.discussionId,
      type: input.thread?.type,
      position: input.thread?.position,
    });
    await this.announce(noteable, actor, note);
    return { note, author: actor, noteableIid: record.iid, resolvedBy: null };
  }

  async update(projectRef: string, actor: UserRecord, ref: NoteableRef, noteId: number, body: string): Promise<NoteView> {
    this.checkBody(body);
    const noteable = await this.deps.noteables.forNotes(projectRef, actor, ref);
    const note = await this.readableNote(noteable, actor, noteId);
    if (!(await this.deps.planningPermissions.canAdminNote(noteable.project, noteable.record, note, actor))) throw accessDenied();
    const updated = await this.deps.notes.update(note.id, { body, updated_at: new Date().toISOString() });
    if (!updated) throw new GantryError('GANTRY_E_NOTE_NOT_FOUND');
    if (updated.body !== note.body) await this.announceUpdate(noteable, actor, updated);
    return this.view(updated, noteable);
  }

  async remove(projectRef: string, actor: UserRecord, ref: NoteableRef, noteId: number): Promise<void> {
    const noteable = await this.deps.noteables.forNotes(projectRef, actor, ref);
    const note = await this.readableNote(noteable, actor, noteId);
    if (!(await this.deps.planningPermissions.canAdminNote(noteable.project, noteable.record, note, actor))) throw accessDenied();
    if (!(await this.deps.notes.delete(note.id))) throw new GantryError('GANTRY_E_NOTE_NOT_FOUND');
  }

  private async announce(noteable: Noteable, actor: UserRecord, note: NoteRecord): Promise<void> {
    const { project } = noteable;
    if (noteable.type === 'MergeRequest') {
      for (const observer of this.deps.mergeRequestObservers) await observer.mergeRequestNoteWritten?.({ project, actor, mergeRequest: noteable.record, note });
    } else if (this.deps.observers.some((observer) => observer.noteWritten)) {
      await announceNoteWritten(this.deps.observers, { project, actor, issue: await this.deps.views.one(noteable.record), note });
    }
  }

  private async announceUpdate(noteable: Noteable, actor: UserRecord, note: NoteRecord): Promise<void> {
    const { project } = noteable;
    if (noteable.type === 'MergeRequest') {
      for (const observer of this.deps.mergeRequestObservers) await observer.mergeRequestNoteUpdated?.({ project, actor, mergeRequest: noteable.record, note });
    } else if (this.deps.observers.some((observer) => observer.noteUpdated)) {
      const written = { project, actor, issue: await this.deps.views.one(noteable.record), note };
      for (const observer of this.deps.observers) await observer.noteUpdated?.(written);
    }
  }

  /** A note of this issue or merge request the caller may read: one of another, or internal to a Guest, is a 404. */
  async readableNote(noteable: Noteable, actor: UserRecord, noteId: number): Promise<NoteRecord> {
    const note = await this.deps.notes.findOn(noteable.type, noteable.record.id, noteId);
    if (!note) throw new GantryError('GANTRY_E_NOTE_NOT_FOUND');
    if (note.internal && !(await this.deps.planningPermissions.canReadInternalNotes(noteable.project, actor))) throw new GantryError('GANTRY_E_NOTE_NOT_FOUND');
    return note;
  }

  /** GitLab's note validations: present, and at most a million characters (counted as code points, as Ruby does). */
  checkBody(body: string): void {
    if (body.trim() === '') throw invalidParam('body', 'is empty');
    if (body.length > NOTE_BODY_MAX_LENGTH && [...body].length > NOTE_BODY_MAX_LENGTH) throw invalidParam('body', `is too long (maximum is ${NOTE_BODY_MAX_LENGTH} characters)`);
  }

  async view(note: NoteRecord, noteable: Noteable): Promise<NoteView> {
    const [view] = await this.views([note], noteable);
    return view!;
  }

  /** The authors (and resolvers) of a page of notes in one statement. */
  async views(notes: readonly NoteRecord[], noteable: Noteable): Promise<NoteView[]> {
    if (notes.length === 0) return [];
    const userIds = notes.flatMap((note) => (note.resolved_by_id === null ? [note.author_id] : [note.author_id, note.resolved_by_id]));
    const users = new Map((await this.deps.users.findByIds([...new Set(userIds)])).map((user) => [user.id, user]));
    const user = (id: number | null) => (id === null ? null : (users.get(id) ?? null));
    return notes.map((note) => ({ note, author: user(note.author_id), noteableIid: noteable.record.iid, resolvedBy: user(note.resolved_by_id) }));
  }
}
