import type { ProjectRecord, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { MergeRequestRecord } from '../../../storage/types-merge-requests.ts';
import type { NewTodo, TodoAction, TodosStore } from '../../../storage/types-todos.ts';
import type { MergeRequestPermissions } from '../access/merge-request-permissions.ts';
import { parseMentions, type Mentions } from './mentions.ts';
import type { MergeRequestMerged, MergeRequestObserver, MergeRequestSaved } from './merge-requests/observers.ts';
import type { MergeRequestNoteObserver, MergeRequestNoteWritten } from './noteables.ts';

export interface MergeRequestTodosDeps {
  todos: Pick<TodosStore, 'createPending' | 'markDone'>;
  users: Pick<UsersStore, 'findByUsername'>;
  mergeRequestPermissions: Pick<MergeRequestPermissions, 'canReadMergeRequests'>;
}

/**
 * Todos that follow merge request changes, as GitLab's TodoService makes them: `assigned` for
 * each newly added assignee, `review_requested` for each newly requested reviewer,
 * `directly_addressed` / `mentioned` for mentions in the description (on an update, only users
 * not mentioned before) and in notes; never for the actor themself and only for users who may
 * read the request. Closing or merging a request, or writing a note on it, marks the actor's own
 * pending todos on it done. One pending todo per user and request, as for issues.
 */
export class MergeRequestTodos implements MergeRequestObserver, MergeRequestNoteObserver {
  constructor(private readonly deps: MergeRequestTodosDeps) {}

  async mergeRequestSaved({ project, actor, before, after, at }: MergeRequestSaved): Promise<void> {
    const request = after.record;
    const fresh = (now: readonly number[], was: readonly number[] | undefined) => now.filter((id) => !(was ?? []).includes(id) && id !== actor.id);
    await this.create(fresh(after.assigneeIds, before?.assigneeIds), this.todo(project, actor, request, 'assigned', request.title, null, at));
    await this.create(fresh(after.reviewerIds, before?.reviewerIds), this.todo(project, actor, request, 'review_requested', request.title, null, at));
    if (before === null || before.record.description !== request.description) {
      const earlier = parseMentions(before?.record.description);
      await this.mentions(project, actor, request, parseMentions(request.description), new Set(earlier.usernames), { body: request.title, noteId: null, at });
    }
    if (before?.record.state === 'opened' && request.state === 'closed') await this.deps.todos.markDone(actor.id, { targetType: 'MergeRequest', targetId: request.id }, at);
  }

  async mergeRequestMerged({ actor, mergeRequest, at }: MergeRequestMerged): Promise<void> {
    await this.deps.todos.markDone(actor.id, { targetType: 'MergeRequest', targetId: mergeRequest.id }, at);
  }

  async mergeRequestNoteWritten({ project, actor, mergeRequest, note }: MergeRequestNoteWritten): Promise<void> {
    if (note.system) return;
    await this.deps.todos.markDone(actor.id, { targetType: 'MergeRequest', targetId: mergeRequest.id }, note.created_at);
    await this.mentions(project, actor, mergeRequest, parseMentions(note.body), new Set(), { body: note.body, noteId: note.id, at: note.created_at });
  }

  /** Directly addressed users first: the one-pending-todo rule then keeps them from a second, `mentioned` one. */
  private async mentions(project: ProjectRecord, actor: UserRecord, request: MergeRequestRecord, mentions: Mentions, skip: ReadonlySet<string>, source: { body: string; noteId: number | null; at: string }): Promise<void> {
    const fresh = mentions.usernames.filter((name) => !skip.has(name));
    if (fresh.length === 0) return;
    const readers = await this.readers(project, actor, fresh);
    const addressed = new Set(mentions.directlyAddressed);
    const byName = (wanted: boolean) => [...readers].flatMap(([name, id]) => (addressed.has(name) === wanted ? [id] : []));
    await this.create(byName(true), this.todo(project, actor, request, 'directly_addressed', source.body, source.noteId, source.at));
    await this.create(byName(false), this.todo(project, actor, request, 'mentioned', source.body, source.noteId, source.at));
  }

  /** The named active users other than the actor who may read the project's merge requests, by name. */
  private async readers(project: ProjectRecord, actor: UserRecord, usernames: readonly string[]): Promise<Map<string, number>> {
    const readers = new Map<string, number>();
    // At most MENTION_BUDGET.maxMentions names reach here.
    for (const name of usernames) {
      const user = await this.deps.users.findByUsername(name);
      if (!user || user.id === actor.id || user.state !== 'active') continue;
      if (await this.deps.mergeRequestPermissions.canReadMergeRequests(project, user)) readers.set(name, user.id);
    }
    return readers;
  }

  private todo(project: ProjectRecord, actor: UserRecord, request: MergeRequestRecord, action: TodoAction, body: string, noteId: number | null, at: string): Omit<NewTodo, 'user_id'> {
    return { author_id: actor.id, project_id: project.id, group_id: null, target_type: 'MergeRequest', target_id: request.id, action, note_id: noteId, body, created_at: at };
  }

  private async create(userIds: readonly number[], todo: Omit<NewTodo, 'user_id'>): Promise<void> {
    if (userIds.length > 0) await this.deps.todos.createPending(userIds, todo);
  }
}
