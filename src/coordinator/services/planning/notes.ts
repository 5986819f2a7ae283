import type { VisibleIssues } from './visible-issues.ts';
import { accessDenied, GantryError, invalidParam } from '../../../shared/errors.ts';
import type { ProjectRecord, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { NoteRecord, NotesStore } from '../../../storage/types-notes.ts';
import type { IssueRecord, IssuesStore } from '../../../storage/types-planning.ts';
import type { Lookup } from '../access/lookup.ts';
import type { PlanningPermissions } from '../access/planning-permissions.ts';
import type { Page, Paged } from '../repository/pages.ts';
import { announceNoteWritten, type IssueObserver } from './issue-observers.ts';
import type { IssueViews } from './issue-views.ts';

/** The longest note body GitLab stores. */
export const NOTE_BODY_MAX_LENGTH = 1_000_000;

/** A note with what its answer shows. */
export interface NoteView {
  note: NoteRecord;
  author: UserRecord | null;
  noteableIid: number;
}

export interface NewNoteInput {
  body: string;
  internal?: boolean;
  createdAt?: string;
}

export interface NoteListQuery {
  orderBy: 'created_at' | 'updated_at';
  sort: 'asc' | 'desc';
}

export interface NotesServiceDeps {
  notes: NotesStore;
  issues: Pick<IssuesStore, 'findByIid' | 'assigneesOf'>;
  users: Pick<UsersStore, 'findByIds'>;
  lookup: Pick<Lookup, 'readableProject'>;
  planningPermissions: PlanningPermissions;
  visibleIssues: Pick<VisibleIssues, 'inProject'>;
  views: Pick<IssueViews, 'one'>;
  /** Told of every note a person writes (todos for mentions …), in order. */
  observers: readonly IssueObserver[];
}

interface VisibleIssue {
  project: ProjectRecord;
  issue: IssueRecord;
}

/**
 * Notes on issues: whoever sees an issue reads its notes (internal ones from Reporters up)
 * and, signed in, writes them (members only while the discussion is locked); authors and
 * Maintainers edit and delete them; system notes are never edited or deleted.
 */
export class NotesService {
  constructor(private readonly deps: NotesServiceDeps) {}

  async list(projectRef: string, actor: UserRecord, iid: number, query: NoteListQuery, page: Page): Promise<Paged<NoteView>> {
    const { project, issue } = await this.visibleIssue(projectRef, actor, iid);
    const includeInternal = await this.deps.planningPermissions.canReadInternalNotes(project, actor);
    const { items, total } = await this.deps.notes.list({ noteableType: 'Issue', noteableId: issue.id, includeInternal, ...query }, page);
    return { items: await this.views(items, issue), total };
  }

  async get(projectRef: string, actor: UserRecord, iid: number, noteId: number): Promise<NoteView> {
    const { project, issue } = await this.visibleIssue(projectRef, actor, iid);
    const note = await this.readableNote(project, issue, actor, noteId);
    return this.view(note, issue);
  }

  async create(projectRef: string, actor: UserRecord, iid: number, input: NewNoteInput): Promise<NoteView> {
    this.checkBody(input.body);
    const { project, issue } = await this.visibleIssue(projectRef, actor, iid);
    const rules = this.deps.planningPermissions;
    if (!(await rules.canCreateNote(project, issue, actor))) throw accessDenied();
    if (input.internal && !(await rules.canReadInternalNotes(project, actor))) throw accessDenied();
    const at = input.createdAt !== undefined && (await rules.canBackdateNote(project, actor)) ? input.createdAt : new Date().toISOString();
    const note = await this.deps.notes.create({
      project_id: project.id,
      noteable_type: 'Issue',
      noteable_id: issue.id,
      author_id: actor.id,
      body: input.body,
      system: false,
      internal: input.internal ?? false,
      created_at: at,
      updated_at: at,
    });
    if (this.deps.observers.some((observer) => observer.noteWritten)) {
      await announceNoteWritten(this.deps.observers, { project, actor, issue: await this.deps.views.one(issue), note });
    }
    return { note, author: actor, noteableIid: issue.iid };
  }

  async update(projectRef: string, actor: UserRecord, iid: number, noteId: number, body: string): Promise<NoteView> {
    this.checkBody(body);
    const { project, issue } = await this.visibleIssue(projectRef, actor, iid);
    const note = await this.readableNote(project, issue, actor, noteId);
    if (!(await this.deps.planningPermissions.canAdminNote(project, issue, note, actor))) throw accessDenied();
    const updated = await this.deps.notes.update(note.id, { body, updated_at: new Date().toISOString() });
    if (!updated) throw new GantryError('GANTRY_E_NOTE_NOT_FOUND');
    return this.view(updated, issue);
  }

  async remove(projectRef: string, actor: UserRecord, iid: number, noteId: number): Promise<void> {
    const { project, issue } = await this.visibleIssue(projectRef, actor, iid);
    const note = await this.readableNote(project, issue, actor, noteId);
    if (!(await this.deps.planningPermissions.canAdminNote(project, issue, note, actor))) throw accessDenied();
    if (!(await this.deps.notes.delete(note.id))) throw new GantryError('GANTRY_E_NOTE_NOT_FOUND');
  }

  /** The issue if the caller may see it (the issues service's rule): otherwise the same 404 as none. */
  private async visibleIssue(projectRef: string, actor: UserRecord, iid: number): Promise<VisibleIssue> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (!(await this.deps.planningPermissions.canReadIssues(project, actor))) throw accessDenied();
    return { project, issue: await this.deps.visibleIssues.inProject(project, actor, iid) };
  }

  /** A note of this issue the caller may read: one of another issue, or internal to a Guest, is a 404. */
  private async readableNote(project: ProjectRecord, issue: IssueRecord, actor: UserRecord, noteId: number): Promise<NoteRecord> {
    const note = await this.deps.notes.findOn('Issue', issue.id, noteId);
    if (!note) throw new GantryError('GANTRY_E_NOTE_NOT_FOUND');
    if (note.internal && !(await this.deps.planningPermissions.canReadInternalNotes(project, actor))) throw new GantryError('GANTRY_E_NOTE_NOT_FOUND');
    return note;
  }

  /** GitLab's note validations: present, and at most a million characters (counted as code points, as Ruby does). */
  private checkBody(body: string): void {
    if (body.trim() === '') throw invalidParam('body', 'is empty');
    if (body.length > NOTE_BODY_MAX_LENGTH && [...body].length > NOTE_BODY_MAX_LENGTH) throw invalidParam('body', `is too long (maximum is ${NOTE_BODY_MAX_LENGTH} characters)`);
  }

  private async view(note: NoteRecord, issue: IssueRecord): Promise<NoteView> {
    const [view] = await this.views([note], issue);
    return view!;
  }

  /** The authors of a page of notes in one statement. */
  private async views(notes: readonly NoteRecord[], issue: IssueRecord): Promise<NoteView[]> {
    if (notes.length === 0) return [];
    const authors = new Map((await this.deps.users.findByIds([...new Set(notes.map((note) => note.author_id))])).map((user) => [user.id, user]));
    return notes.map((note) => ({ note, author: authors.get(note.author_id) ?? null, noteableIid: issue.iid }));
  }
}
