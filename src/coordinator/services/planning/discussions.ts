import type { Readable } from 'node:stream';
import { accessDenied, GantryError } from '../../../shared/errors.ts';
import type { GitDiffStream, GitFileDiff, RepositoryManager } from '../../../storage/git/types.ts';
import type { UserRecord } from '../../../storage/types.ts';
import type { MergeRequestRecord } from '../../../storage/types-merge-requests.ts';
import { isResolvableNote, type DiffPosition, type DiscussionFilter, type NotesStore } from '../../../storage/types-notes.ts';
import type { MergeRequestPermissions } from '../access/merge-request-permissions.ts';
import type { Actor } from '../access/permissions.ts';
import type { PlanningPermissions } from '../access/planning-permissions.ts';
import type { Page, Paged } from '../repository/pages.ts';
import { matchDiffPosition } from '../repository/diff-lines.ts';
import type { Noteable, NoteableRef, Noteables } from './noteables.ts';
import type { NotesService, NoteView } from './notes.ts';

/** A thread as its answer shows it: an individual note is a thread of one plain note. */
export interface DiscussionView {
  id: string;
  individualNote: boolean;
  notes: NoteView[];
}

/** A position as a client sends it (danger-js's inline comment); checked against the request's diff refs. */
export interface DiffPositionInput {
  base_sha: string;
  start_sha: string;
  head_sha: string;
  position_type: string;
  old_path?: string;
  new_path?: string;
  old_line?: number;
  new_line?: number;
}

export interface NewDiscussionInput {
  body: string;
  createdAt?: string;
  /** Merge requests only: a DiffNote on that line. */
  position?: DiffPositionInput;
}

export interface DiscussionsServiceDeps {
  notes: Pick<NotesStore, 'discussionIds' | 'notesOfDiscussions' | 'convertToDiscussion' | 'setResolved'>;
  noteService: Pick<NotesService, 'createOn' | 'readableNote' | 'view' | 'views' | 'checkBody'>;
  noteables: Pick<Noteables, 'forNotes'>;
  planningPermissions: Pick<PlanningPermissions, 'canReadInternalNotes'>;
  mergeRequestPermissions: Pick<MergeRequestPermissions, 'canAdminMergeRequests' | 'canReadMergeRequests'>;
  /** Where a DiffNote's line is looked up in the request's diff. */
  repositories: Pick<RepositoryManager, 'open' | 'exists'>;
}

const noteRefused = (message: string) => new GantryError('GANTRY_E_NOTE_REFUSED', message);

/**
 * Threads on issues and merge requests (GitLab's discussions API): every note is in one, a plain
 * note alone in its own; a reply to a plain note makes it the first note of a thread. On merge
 * requests a thread's notes are resolvable: its author and Developers and up resolve them.
 * Editing and deleting a note in a thread are the notes' own rules (NotesService).
 */
export class DiscussionsService {
  constructor(private readonly deps: DiscussionsServiceDeps) {}

  /** Also for an anonymous caller (the web pages): what the permission rules give nobody signed in. */
  async list(projectRef: string, actor: Actor, ref: NoteableRef, page: Page): Promise<Paged<DiscussionView>> {
    const noteable = await this.deps.noteables.forNotes(projectRef, actor, ref);
    const filter = await this.filterFor(noteable, actor);
    const { ids, total } = await this.deps.notes.discussionIds(filter, page);
    const notes = await this.deps.notes.notesOfDiscussions(filter, ids);
    const views = await this.deps.noteService.views(notes, noteable);
    return { items: ids.map((id) => discussionOf(id, views.filter((view) => view.note.discussion_id === id))), total };
  }

  async get(projectRef: string, actor: UserRecord, ref: NoteableRef, discussionId: string): Promise<DiscussionView> {
    const noteable = await this.deps.noteables.forNotes(projectRef, actor, ref);
    return this.discussion(noteable, actor, discussionId);
  }

  async create(projectRef: string, actor: UserRecord, ref: NoteableRef, input: NewDiscussionInput): Promise<DiscussionView> {
    this.deps.noteService.checkBody(input.body);
    const noteable = await this.deps.noteables.forNotes(projectRef, actor, ref);
    const position = input.position && noteable.type === 'MergeRequest' ? diffPositionOn(noteable.record, input.position) : null;
    if (position) await this.checkDiffLine(noteable.project.id, position);
    const thread = position ? { type: 'DiffNote' as const, position } : { type: 'DiscussionNote' as const };
    const created = await this.deps.noteService.createOn(noteable, actor, { body: input.body, createdAt: input.createdAt, thread });
    return discussionOf(created.note.discussion_id, [created]);
  }

  /** `POST .../discussions/:id/notes`: a reply takes the thread's type and position (a DiffNote thread's replies are DiffNotes, as GitLab). */
  async reply(projectRef: string, actor: UserRecord, ref: NoteableRef, discussionId: string, input: { body: string; createdAt?: string }): Promise<NoteView> {
    this.deps.noteService.checkBody(input.body);
    const noteable = await this.deps.noteables.forNotes(projectRef, actor, ref);
    const [first] = await this.deps.notes.notesOfDiscussions(await this.filterFor(noteable, actor), [discussionId]);
    if (!first) throw new GantryError('GANTRY_E_DISCUSSION_NOT_FOUND');
    if (first.system) throw noteRefused('Discussion can not be replied to.');
    if (first.type === null) await this.deps.notes.convertToDiscussion(first.id);
    const thread = { discussionId, type: first.type ?? ('DiscussionNote' as const), position: first.position };
    return this.deps.noteService.createOn(noteable, actor, { body: input.body, createdAt: input.createdAt, thread });
  }

  /**
   * That note is in that thread (404 Note Not Found otherwise): the routes below a thread act
   * on its notes only (GitLab looks the note up by id alone; Gantry is stricter).
   */
  async assertInThread(projectRef: string, actor: UserRecord, ref: NoteableRef, discussionId: string, noteId: number): Promise<void> {
    const noteable = await this.deps.noteables.forNotes(projectRef, actor, ref);
    const note = await this.deps.noteService.readableNote(noteable, actor, noteId);
    if (note.discussion_id !== discussionId) throw new GantryError('GANTRY_E_NOTE_NOT_FOUND');
  }

  /** `PUT .../discussions/:id/notes/:note_id` with `resolved`: one note of a merge request. */
  async resolveNote(projectRef: string, actor: UserRecord, ref: NoteableRef, noteId: number, resolved: boolean): Promise<NoteView> {
    const noteable = await this.deps.noteables.forNotes(projectRef, actor, ref);
    const note = await this.deps.noteService.readableNote(noteable, actor, noteId);
    if (!(await this.canResolve(noteable, actor))) throw accessDenied();
    if (!isResolvableNote(note)) throw noteRefused('Note is not resolvable');
    const [updated] = await this.deps.notes.setResolved([note.id], resolved ? { userId: actor.id, at: new Date().toISOString() } : null);
    return this.deps.noteService.view(updated ?? note, noteable);
  }

  /** `PUT .../discussions/:id?resolved=`: every resolvable note of the thread (those resolved before keep their resolver). */
  async resolve(projectRef: string, actor: UserRecord, ref: NoteableRef, discussionId: string, resolved: boolean): Promise<DiscussionView> {
    const noteable = await this.deps.noteables.forNotes(projectRef, actor, ref);
    const discussion = await this.discussion(noteable, actor, discussionId);
    const resolvable = discussion.notes.map((view) => view.note).filter(isResolvableNote);
    // GitLab's `can_resolve?` is false for a thread with nothing to resolve: 403, as there.
    if (resolvable.length === 0 || !(await this.canResolve(noteable, actor))) throw accessDenied();
    const targets = resolved ? resolvable.filter((note) => note.resolved_at === null) : resolvable;
    await this.deps.notes.setResolved(targets.map((note) => note.id), resolved ? { userId: actor.id, at: new Date().toISOString() } : null);
    return this.discussion(noteable, actor, discussionId);
  }

  /**
   * GitLab computes a DiffNote's `line_code` from the file's diff (base_sha..head_sha): a
   * position naming no line of it (a file not in the diff, a line off its hunks that cannot be
   * unfolded) leaves it blank, and the note is refused.
   */
  private async checkDiffLine(projectId: number, position: DiffPosition): Promise<void> {
    const refused = () => noteRefused(`Note {:line_code=>["can't be blank", "must be a valid line code"]}`);
    if (!(await this.deps.repositories.exists(projectId))) throw refused();
    const repository = this.deps.repositories.open(projectId);
    const file = await findFileDiff(await repository.diffBetween(position.base_sha, position.head_sha, { expanded: true }), position);
    if (!file) throw refused();
    // A diff cut by the limits shows no lines to check the position against.
    if (file.too_large || file.collapsed) return;
    const match = matchDiffPosition(file.diff, position.old_line, position.new_line);
    if (match === 'line') return;
    if (match === 'unfold' && !file.new_file && !file.deleted_file && position.old_line !== null) {
      const blob = await repository.blobAt(position.base_sha, file.old_path);
      if (blob && (await hasLine(repository.streamBlob(blob.id, blob.size), position.old_line))) return;
    }
    throw refused();
  }

  /** GitLab's `resolve_note`: the request's author (who still reads it) and Developers and up. */
  private async canResolve(noteable: Noteable, actor: UserRecord): Promise<boolean> {
    if (noteable.type !== 'MergeRequest') return false;
    const rules = this.deps.mergeRequestPermissions;
    if (await rules.canAdminMergeRequests(noteable.project, actor)) return true;
    return noteable.record.author_id === actor.id && (await rules.canReadMergeRequests(noteable.project, actor));
  }

  private async discussion(noteable: Noteable, actor: UserRecord, discussionId: string): Promise<DiscussionView> {
    const notes = await this.deps.notes.notesOfDiscussions(await this.filterFor(noteable, actor), [discussionId]);
    if (notes.length === 0) throw new GantryError('GANTRY_E_DISCUSSION_NOT_FOUND');
    return discussionOf(discussionId, await this.deps.noteService.views(notes, noteable));
  }

  private async filterFor(noteable: Noteable, actor: Actor): Promise<DiscussionFilter> {
    const includeInternal = await this.deps.planningPermissions.canReadInternalNotes(noteable.project, actor);
    return { noteableType: noteable.type, noteableId: noteable.record.id, includeInternal };
  }
}

/** The position's file in a diff (by its new path, else its old one); reading stops, and git with it, once found. */
async function findFileDiff(diffs: GitDiffStream, position: DiffPosition): Promise<GitFileDiff | null> {
  try {
    for await (const diff of diffs) {
      if (diff.new_path === position.new_path || diff.old_path === position.old_path) return diff;
    }
    return null;
  } finally {
    diffs.close();
  }
}

/** Whether a file has line `line` as git numbers them (a last line without its newline counts); streamed, stopping once found. */
async function hasLine(blob: Readable, line: number): Promise<boolean> {
  let newlines = 0;
  let endsInNewline = true;
  try {
    for await (const chunk of blob as AsyncIterable<Buffer>) {
      for (let at = chunk.indexOf(0x0a); at >= 0; at = chunk.indexOf(0x0a, at + 1)) newlines += 1;
      if (chunk.length > 0) endsInNewline = chunk[chunk.length - 1] === 0x0a;
      if (newlines >= line) return true;
    }
    return newlines + (endsInNewline ? 0 : 1) >= line;
  } finally {
    blob.destroy();
  }
}

function discussionOf(id: string, notes: NoteView[]): DiscussionView {
  return { id, individualNote: notes.length === 1 && notes[0]!.note.type === null, notes };
}

/**
 * A text position on the request's current diff: the sha triplet must be the request's diff
 * refs (a client that read them before a push is told so), with a path and a line
 * (DiscussionsService.checkDiffLine then finds that line in the diff).
 */
function diffPositionOn(mergeRequest: MergeRequestRecord, input: DiffPositionInput): DiffPosition {
  if (input.position_type !== 'text') throw noteRefused(`Note {:position=>["position_type ${JSON.stringify(input.position_type)} is not supported (text only)"]}`);
  const { base_sha, start_sha, head_sha } = mergeRequest;
  if (input.base_sha !== base_sha || input.start_sha !== start_sha || input.head_sha !== head_sha) {
    throw noteRefused(`Note {:position=>["does not match the merge request's diff refs"]}`);
  }
  const oldPath = input.old_path ?? input.new_path ?? null;
  const newPath = input.new_path ?? input.old_path ?? null;
  if (newPath === null || (input.new_line === undefined && input.old_line === undefined)) throw noteRefused(`Note {:line_code=>["can't be blank"]}`);
  if ((input.new_line !== undefined && input.new_line < 1) || (input.old_line !== undefined && input.old_line < 1)) throw noteRefused(`Note {:line_code=>["must be a valid line code"]}`);
  return { base_sha: input.base_sha, start_sha: input.start_sha, head_sha: input.head_sha, position_type: 'text', old_path: oldPath, new_path: newPath, old_line: input.old_line ?? null, new_line: input.new_line ?? null };
}
