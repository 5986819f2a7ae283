import type { ProjectRecord, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { NewTodo, TodoAction, TodosStore } from '../../../storage/types-todos.ts';
import type { PlanningPermissions } from '../access/planning-permissions.ts';
import type { IssueObserver, IssueSaved, NoteWritten } from './issue-observers.ts';
import type { IssueView } from './issue-views.ts';
import { parseMentions, type Mentions } from './mentions.ts';

export interface TodosObserverDeps {
  todos: Pick<TodosStore, 'createPending' | 'markDone'>;
  users: Pick<UsersStore, 'findByUsername'>;
  planningPermissions: Pick<PlanningPermissions, 'canSeeIssue'>;
}

/**
 * Todos that follow issue changes, as GitLab's TodoService makes them: `assigned` for each
 * newly added assignee, `directly_addressed` for the users a description or note starts by
 * mentioning and `mentioned` for the others (on an update, only users not mentioned before),
 * never for the actor themself and, for mentions, only for users who may see the issue. A user
 * keeps at most one pending todo per issue. Closing an issue, or writing a note on it, marks the
 * actor's own pending todos on it done.
 */
export class TodosObserver implements IssueObserver {
  constructor(private readonly deps: TodosObserverDeps) {}

  async issueSaved({ project, actor, before, after, at }: IssueSaved): Promise<void> {
    const issue = after.issue;
    const known = new Set(before?.assignees.map((user) => user.id) ?? []);
    const assigned = after.assignees.filter((user) => !known.has(user.id) && user.id !== actor.id).map((user) => user.id);
    await this.create(assigned, this.todo(project, actor, after, 'assigned', issue.title, null, at));
    if (before === null || before.issue.description !== issue.description) {
      const earlier = parseMentions(before?.issue.description);
      await this.mentions(project, actor, after, parseMentions(issue.description), new Set(earlier.usernames), { body: issue.title, noteId: null, at });
    }
    if (before?.issue.state === 'opened' && issue.state === 'closed') {
      await this.deps.todos.markDone(actor.id, { targetType: 'Issue', targetId: issue.id }, at);
    }
  }

  async noteWritten({ project, actor, issue, note }: NoteWritten): Promise<void> {
    if (note.system) return;
    await this.deps.todos.markDone(actor.id, { targetType: 'Issue', targetId: issue.issue.id }, note.created_at);
    await this.mentions(project, actor, issue, parseMentions(note.body), new Set(), { body: note.body, noteId: note.id, at: note.created_at });
  }

  /** Directly addressed users first: the one-pending-todo rule then keeps them from a second, `mentioned` one. */
  private async mentions(project: ProjectRecord, actor: UserRecord, view: IssueView, mentions: Mentions, skip: ReadonlySet<string>, source: { body: string; noteId: number | null; at: string }): Promise<void> {
    const fresh = mentions.usernames.filter((name) => !skip.has(name));
    if (fresh.length === 0) return;
    const readers = await this.readers(project, actor, view, fresh);
    const addressed = new Set(mentions.directlyAddressed);
    const byName = (wanted: boolean) => [...readers].flatMap(([name, id]) => (addressed.has(name) === wanted ? [id] : []));
    await this.create(byName(true), this.todo(project, actor, view, 'directly_addressed', source.body, source.noteId, source.at));
    await this.create(byName(false), this.todo(project, actor, view, 'mentioned', source.body, source.noteId, source.at));
  }

  /** The named active users other than the actor who may see the issue (confidential ones included), by name. */
  private async readers(project: ProjectRecord, actor: UserRecord, view: IssueView, usernames: readonly string[]): Promise<Map<string, number>> {
    const assigneeIds = view.assignees.map((user) => user.id);
    const readers = new Map<string, number>();
    // At most MENTION_BUDGET.maxMentions names reach here.
    for (const name of usernames) {
      const user = await this.deps.users.findByUsername(name);
      if (!user || user.id === actor.id || user.state !== 'active') continue;
      if (await this.deps.planningPermissions.canSeeIssue(project, view.issue, assigneeIds, user)) readers.set(name, user.id);
    }
    return readers;
  }

  private todo(project: ProjectRecord, actor: UserRecord, view: IssueView, action: TodoAction, body: string, noteId: number | null, at: string): Omit<NewTodo, 'user_id'> {
    return { author_id: actor.id, project_id: project.id, group_id: null, target_type: 'Issue', target_id: view.issue.id, action, note_id: noteId, body, created_at: at };
  }

  private async create(userIds: readonly number[], todo: Omit<NewTodo, 'user_id'>): Promise<void> {
    if (userIds.length > 0) await this.deps.todos.createPending(userIds, todo);
  }
}
