import { GantryError } from '../../../shared/errors.ts';
import type { NamespaceRecord, NamespacesStore, ProjectRecord, ProjectsStore, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { TodoAction, TodoRecord, TodosStore, TodoState } from '../../../storage/types-todos.ts';
import type { IssuesStore } from '../../../storage/types-planning.ts';
import type { MergeRequestRecord, MergeRequestsStore } from '../../../storage/types-merge-requests.ts';
import type { Permissions } from '../access/permissions.ts';
import type { PlanningPermissions } from '../access/planning-permissions.ts';
import { actorProjectAccess, type ProjectScopeDeps } from '../namespaces/project-scope.ts';
import { projectFullPathIn } from '../namespaces/project-full-path.ts';
import type { Page, Paged } from '../repository/pages.ts';
import type { IssueView, IssueViews } from './issue-views.ts';
import type { VisibleMergeRequests } from './merge-requests/visible.ts';
import type { VisibleIssues } from './visible-issues.ts';

/** A todo with what its answer shows, gathered for a whole page at once. */
export interface TodoView {
  todo: TodoRecord;
  author: UserRecord | null;
  project: { project: ProjectRecord; namespace: NamespaceRecord } | null;
  target: IssueView | null;
  /** The target of a merge request's todo, with its project's path (for web_url). */
  mergeRequest: { record: MergeRequestRecord; projectPath: string } | null;
}

export interface TodoQuery {
  action?: TodoAction;
  authorId?: number;
  projectId?: number;
  groupId?: number;
  state?: TodoState;
  type?: 'Issue' | 'MergeRequest';
}

export interface TodosServiceDeps extends ProjectScopeDeps {
  todos: TodosStore;
  issues: Pick<IssuesStore, 'findByIds'>;
  mergeRequests: Pick<MergeRequestsStore, 'findByIds'>;
  visibleMergeRequests: Pick<VisibleMergeRequests, 'find'>;
  visibleIssues: Pick<VisibleIssues, 'find'>;
  views: Pick<IssueViews, 'many'>;
  users: Pick<UsersStore, 'findByIds'>;
  projects: Pick<ProjectsStore, 'findByIds'>;
  namespaces: ProjectScopeDeps['namespaces'] & Pick<NamespacesStore, 'findByIds' | 'descendantIds'>;
  permissions: Pick<Permissions, 'projectListingScope'>;
  planningPermissions: Pick<PlanningPermissions, 'confidentialAccess'>;
}

/**
 * The caller's todos (GitLab's TodosFinder): pending ones unless `state=done` asks, newest
 * first, and only those whose issue or merge request the caller may still see — the same scope
 * as the issue lists (merge requests: a project they read with merge requests enabled), applied
 * in the list's query, so a page is never short and costs no statement per row.
 */
export class TodosService {
  constructor(private readonly deps: TodosServiceDeps) {}

  async list(actor: UserRecord, query: TodoQuery, page: Page): Promise<Paged<TodoView>> {
    const access = await actorProjectAccess(this.deps, actor);
    const namespaceIds = query.groupId === undefined ? undefined : [query.groupId, ...(await this.deps.namespaces.descendantIds(query.groupId))];
    const { items, total } = await this.deps.todos.list(
      {
        userId: actor.id,
        projects: { visibleScope: this.deps.permissions.projectListingScope(actor, access) },
        confidentialAccess: this.deps.planningPermissions.confidentialAccess(actor, access),
        action: query.action,
        authorId: query.authorId,
        projectId: query.projectId,
        namespaceIds,
        state: query.state ?? 'pending',
        targetType: query.type,
      },
      page,
    );
    return { items: await this.views(items), total };
  }

  /** `POST /todos/:id/mark_as_done`: the caller's own todo only (another's is the same 404 as none). */
  async markDone(actor: UserRecord, id: number): Promise<TodoView> {
    const todo = await this.deps.todos.findOwn(actor.id, id);
    if (!todo) throw new GantryError('GANTRY_E_TODO_NOT_FOUND');
    const now = new Date().toISOString();
    await this.deps.todos.markDone(actor.id, { id }, now);
    const [view] = await this.views([{ ...todo, state: 'done', updated_at: todo.state === 'done' ? todo.updated_at : now }]);
    return view!;
  }

  /**
   * `POST .../merge_requests/:merge_request_iid/todo`: a `marked` todo for the caller on a
   * request they see; undefined (GitLab's 304) when they already hold a pending one there.
   */
  async markMergeRequest(projectRef: string, actor: UserRecord, iid: number): Promise<TodoView | undefined> {
    const { project, mergeRequest } = await this.deps.visibleMergeRequests.find(projectRef, actor, iid);
    return this.mark(actor, project.id, 'MergeRequest', mergeRequest);
  }

  /** `POST .../issues/:issue_iid/todo`: as for merge requests, on an issue the caller sees. */
  async markIssue(projectRef: string, actor: UserRecord, iid: number): Promise<TodoView | undefined> {
    const { project, issue } = await this.deps.visibleIssues.find(projectRef, actor, iid);
    return this.mark(actor, project.id, 'Issue', issue);
  }

  /** A `marked` todo of the caller's own on a target; undefined when one is pending there already. */
  private async mark(actor: UserRecord, projectId: number, targetType: 'Issue' | 'MergeRequest', target: { id: number; title: string }): Promise<TodoView | undefined> {
    const [todo] = await this.deps.todos.createPending([actor.id], {
      author_id: actor.id,
      project_id: projectId,
      group_id: null,
      target_type: targetType,
      target_id: target.id,
      action: 'marked',
      note_id: null,
      body: target.title,
      created_at: new Date().toISOString(),
    });
    if (!todo) return undefined;
    const [view] = await this.views([todo]);
    return view;
  }

  async markAllDone(actor: UserRecord): Promise<void> {
    await this.deps.todos.markDone(actor.id, 'all', new Date().toISOString());
  }

  /** Authors, projects, namespaces and target issues of a page, each read once for all of them. */
  private async views(todos: readonly TodoRecord[]): Promise<TodoView[]> {
    if (todos.length === 0) return [];
    const { deps } = this;
    const issueIds = todos.flatMap((todo) => (todo.target_type === 'Issue' ? [todo.target_id] : []));
    const issueViews = new Map((await deps.views.many(await deps.issues.findByIds(issueIds))).map((view) => [view.issue.id, view]));
    const mergeRequestIds = todos.flatMap((todo) => (todo.target_type === 'MergeRequest' ? [todo.target_id] : []));
    const mergeRequests = new Map((mergeRequestIds.length ? await deps.mergeRequests.findByIds(mergeRequestIds) : []).map((record) => [record.id, record]));
    const users = new Map((await deps.users.findByIds([...new Set(todos.map((todo) => todo.author_id))])).map((user) => [user.id, user]));
    const projectIds = [...new Set(todos.flatMap((todo) => (todo.project_id === null ? [] : [todo.project_id])))];
    const projects = new Map((projectIds.length ? await deps.projects.findByIds(projectIds) : []).map((project) => [project.id, project]));
    const namespaceIds = [...new Set([...projects.values()].map((project) => project.namespace_id))];
    const namespaces = new Map((namespaceIds.length ? await deps.namespaces.findByIds(namespaceIds) : []).map((namespace) => [namespace.id, namespace]));
    return todos.map((todo) => {
      const project = todo.project_id === null ? undefined : projects.get(todo.project_id);
      const namespace = project && namespaces.get(project.namespace_id);
      const mergeRequest = todo.target_type === 'MergeRequest' ? mergeRequests.get(todo.target_id) : undefined;
      const mergeRequestProject = mergeRequest && (mergeRequest.project_id === project?.id ? project : projects.get(mergeRequest.project_id));
      const mergeRequestNamespace = mergeRequestProject && namespaces.get(mergeRequestProject.namespace_id);
      return {
        todo,
        author: users.get(todo.author_id) ?? null,
        project: project && namespace ? { project, namespace } : null,
        target: todo.target_type === 'Issue' ? (issueViews.get(todo.target_id) ?? null) : null,
        mergeRequest: mergeRequest && mergeRequestProject && mergeRequestNamespace ? { record: mergeRequest, projectPath: projectFullPathIn(mergeRequestNamespace, mergeRequestProject) } : null,
      };
    });
  }
}
