import { accessDenied, GantryError, validationFailed } from '../../../shared/errors.ts';
import type { ProjectRecord, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { IssueChanges, IssueListFilter, IssueRecord, IssueRelations, IssuesStore } from '../../../storage/types-planning.ts';
import type { NotesStore } from '../../../storage/types-notes.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Actor, Permissions } from '../access/permissions.ts';
import type { PlanningPermissions } from '../access/planning-permissions.ts';
import { actorProjectAccess, type ProjectScopeDeps } from '../namespaces/project-scope.ts';
import type { Page, Paged } from '../repository/pages.ts';
import { dueDateRange, type DueDateFilter } from './issue-due-dates.ts';
import type { IssueFields } from './issue-fields.ts';
import { negatedFilter, type NegatedIssuableQuery } from './issuable-negation.ts';
import { announceIssueSaved, type IssueObserver } from './issue-observers.ts';
import type { IssueView, IssueViews } from './issue-views.ts';
import type { VisibleIssues } from './visible-issues.ts';
import type { MilestonesService } from './milestones.ts';
import type { OwnerRef } from './planning-owner.ts';

/** The filters of the three issue lists, as the API reads them (everything but where). */
export type IssueQuery = Omit<IssueListFilter, 'projects' | 'confidentialAccess' | 'reactedBy' | 'due' | 'today' | 'not'> & {
  scope?: 'created_by_me' | 'assigned_to_me' | 'all';
  /** `due_date`, counted from today (UTC). */
  dueDate?: DueDateFilter;
  /** `issue_type`: every issue here is an `issue`; another type matches nothing. */
  issueType?: string;
  not?: NegatedIssuableQuery;
  /** The author or assignee by username instead of id. */
  authorUsername?: string;
  assigneeUsername?: string;
  /** The caller's own awards: an emoji name, `any` or `none`. */
  myReactionEmoji?: string;
};

export interface NewIssueInput {
  title: string;
  description?: string;
  confidential?: boolean;
  labels?: readonly string[];
  milestoneId?: number | null;
  assigneeIds?: readonly number[];
  dueDate?: string | null;
  createdAt?: string;
  discussionLocked?: boolean;
}

export interface IssueUpdateInput extends Partial<Omit<NewIssueInput, 'createdAt'>> {
  stateEvent?: 'close' | 'reopen';
  addLabels?: readonly string[];
  removeLabels?: readonly string[];
}

export interface IssuesServiceDeps extends ProjectScopeDeps {
  issues: IssuesStore;
  lookup: Pick<Lookup, 'readableProject' | 'readableGroup'>;
  permissions: Pick<Permissions, 'projectListingScope'>;
  planningPermissions: PlanningPermissions;
  fields: IssueFields;
  views: IssueViews;
  milestones: Pick<MilestonesService, 'resolve'>;
  visibleIssues: Pick<VisibleIssues, 'inProject'>;
  users: Pick<UsersStore, 'findByUsername' | 'findByIds'>;
  notes: Pick<NotesStore, 'authorIdsOf'>;
  /** Told of every issue created or updated (system notes, todos …), in order. */
  observers: readonly IssueObserver[];
}

/**
 * Issues: whoever reads a project with issues enabled reads its issues, except confidential
 * ones (Reporters and up, their authors and assignees only); anyone signed in who reads it
 * opens them; authors and Reporters and up edit them, and only Reporters and up set labels,
 * milestones, assignees, due dates and locks; Owners delete them.
 */
export class IssuesService {
  constructor(private readonly deps: IssuesServiceDeps) {}

  /** `GET /issues`: every project the caller reads; by default only the issues they opened. */
  async listAll(actor: UserRecord, query: IssueQuery, page: Page): Promise<Paged<IssueView>> {
    const access = await actorProjectAccess(this.deps, actor);
    const projects = { visibleScope: this.deps.permissions.projectListingScope(actor, access) };
    return this.list(actor, { ...query, scope: query.scope ?? 'created_by_me' }, { projects, confidentialAccess: this.deps.planningPermissions.confidentialAccess(actor, access) }, page);
  }

  async listGroup(groupRef: string, actor: UserRecord, query: IssueQuery, page: Page): Promise<Paged<IssueView>> {
    const group = await this.deps.lookup.readableGroup(groupRef, actor);
    const access = await actorProjectAccess(this.deps, actor);
    const namespaceIds = [group.id, ...(await this.deps.namespaces.descendantIds(group.id))];
    const projects = { namespaceIds, visibleScope: this.deps.permissions.projectListingScope(actor, access) };
    return this.list(actor, query, { projects, confidentialAccess: this.deps.planningPermissions.confidentialAccess(actor, access) }, page);
  }

  /** Also for an anonymous caller (the web pages): the same rules, no issue of their own. */
  async listProject(projectRef: string, actor: Actor, query: IssueQuery, page: Page): Promise<Paged<IssueView>> {
    const project = await this.readable(projectRef, actor);
    const where = { projects: { projectIds: [project.id], visibleScope: null }, confidentialAccess: await this.deps.planningPermissions.confidentialAccessIn(project, actor) };
    return this.list(actor, query, where, page);
  }

  /** `GET .../milestones/:milestone_id/issues`: the milestone's issues in the projects the caller reads. */
  async listMilestone(ownerRef: OwnerRef, actor: UserRecord, milestoneId: number, page: Page): Promise<Paged<IssueView>> {
    const { owner, milestone } = await this.deps.milestones.resolve(ownerRef, actor, milestoneId);
    const query: IssueQuery = { milestoneId: milestone.id, orderBy: 'created_at', sort: 'desc' };
    if (owner.kind === 'project') return this.listProject(String(owner.project.id), actor, query, page);
    return this.listGroup(String(owner.group.id), actor, query, page);
  }

  private async list(actor: Actor, query: IssueQuery, where: Pick<IssueListFilter, 'projects' | 'confidentialAccess'>, page: Page): Promise<Paged<IssueView>> {
    const { scope, myReactionEmoji, authorUsername, assigneeUsername, dueDate, issueType, not, ...rest } = query;
    if (issueType !== undefined && issueType !== 'issue') return { items: [], total: 0 };
    const now = new Date();
    const filter: Omit<IssueListFilter, 'projects' | 'confidentialAccess'> = {
      ...rest,
      today: now.toISOString().slice(0, 10),
      ...(dueDate === undefined ? {} : { due: dueDateRange(dueDate, now) }),
      ...(not ? { not: await negatedFilter(this.deps.users, not, actor) } : {}),
    };
    // A username names one user; an unknown one matches no issue.
    for (const [key, username] of [['authorId', authorUsername], ['assigneeId', assigneeUsername]] as const) {
      if (username === undefined) continue;
      const user = await this.deps.users.findByUsername(username);
      if (!user) return { items: [], total: 0 };
      filter[key] = user.id;
    }
    // "Mine" filters select nothing without a caller.
    if (actor === null) return scope === 'created_by_me' || scope === 'assigned_to_me' || myReactionEmoji !== undefined ? { items: [], total: 0 } : this.page({ ...filter, ...where }, page);
    const mine = scope === 'created_by_me' ? { authorId: actor.id } : scope === 'assigned_to_me' ? { assigneeId: actor.id } : {};
    // The scope and the author or assignee filters all apply, as in GitLab's finder: another user under "mine" matches nothing.
    const otherAuthor = scope === 'created_by_me' && filter.authorId !== undefined && filter.authorId !== actor.id;
    const otherAssignee = scope === 'assigned_to_me' && filter.assigneeId !== undefined && filter.assigneeId !== 'any' && filter.assigneeId !== actor.id;
    if (otherAuthor || otherAssignee) return { items: [], total: 0 };
    const reactedBy = myReactionEmoji === undefined ? {} : { reactedBy: { userId: actor.id, emoji: myReactionEmoji } };
    return this.page({ ...filter, ...where, ...mine, ...reactedBy }, page);
  }

  private async page(filter: IssueListFilter, page: Page): Promise<Paged<IssueView>> {
    const { items, total } = await this.deps.issues.list(filter, page);
    return { items: await this.deps.views.many(items), total };
  }

  async get(projectRef: string, actor: Actor, iid: number): Promise<IssueView> {
    const project = await this.readable(projectRef, actor);
    return this.deps.views.one(await this.find(project, actor, iid));
  }

  /** `GET .../participants`: the author, the assignees and whoever wrote a note others read. */
  async participants(projectRef: string, actor: Actor, iid: number): Promise<UserRecord[]> {
    const view = await this.get(projectRef, actor, iid);
    const people = new Map<number, UserRecord>();
    for (const user of [view.author, ...view.assignees]) if (user) people.set(user.id, user);
    const commenterIds = (await this.deps.notes.authorIdsOf('Issue', view.issue.id)).filter((id) => !people.has(id));
    if (commenterIds.length > 0) for (const user of await this.deps.users.findByIds(commenterIds)) people.set(user.id, user);
    return [...people.values()];
  }

  async create(projectRef: string, actor: UserRecord, input: NewIssueInput): Promise<IssueView> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    const rules = this.deps.planningPermissions;
    if (!(await rules.canCreateIssue(project, actor))) throw accessDenied();
    const admin = await rules.canAdminIssues(project, actor);
    const now = new Date().toISOString();
    const createdAt = input.createdAt !== undefined && (await rules.canBackdateIssue(project, actor)) ? input.createdAt : now;
    const { fields } = this.deps;
    const issue = await this.deps.issues.create(
      {
        project_id: project.id,
        author_id: actor.id,
        title: input.title,
        description: input.description ?? null,
        state: 'opened',
        confidential: input.confidential ?? false,
        discussion_locked: admin && input.discussionLocked !== undefined ? input.discussionLocked : null,
        milestone_id: admin && input.milestoneId !== undefined ? await fields.milestoneId(project, input.milestoneId) : null,
        due_date: admin ? (input.dueDate ?? null) : null,
        time_estimate: 0,
        total_time_spent: 0,
        closed_at: null,
        closed_by_id: null,
        created_at: createdAt,
        updated_at: createdAt,
      },
      {
        labelIds: admin && input.labels ? await fields.labelIds(project, input.labels) : [],
        assigneeIds: admin && input.assigneeIds ? await fields.assigneeIds(project, input.assigneeIds) : [],
      },
    );
    const view = await this.deps.views.one(issue);
    await announceIssueSaved(this.deps.observers, { project, actor, before: null, after: view, at: createdAt });
    return view;
  }

  async update(projectRef: string, actor: UserRecord, iid: number, input: IssueUpdateInput): Promise<IssueView> {
    const project = await this.readable(projectRef, actor);
    const issue = await this.find(project, actor, iid);
    const rules = this.deps.planningPermissions;
    if (!(await rules.canUpdateIssue(project, issue, actor))) throw accessDenied();
    // The model's presence rule, as GitLab's: a blank title is refused, never stored.
    if (input.title !== undefined && input.title.trim() === '') throw validationFailed({ title: ["can't be blank"] });
    const admin = await rules.canAdminIssues(project, actor);
    const now = new Date().toISOString();
    const changes: IssueChanges = { title: input.title, description: input.description, confidential: input.confidential, updated_at: now };
    if (input.stateEvent === 'close' && issue.state === 'opened') Object.assign(changes, { state: 'closed', closed_at: now, closed_by_id: actor.id });
    if (input.stateEvent === 'reopen' && issue.state === 'closed') Object.assign(changes, { state: 'opened', closed_at: null, closed_by_id: null });
    const relations: IssueRelations = {};
    if (admin) {
      const { fields } = this.deps;
      if (input.discussionLocked !== undefined) changes.discussion_locked = input.discussionLocked;
      if (input.dueDate !== undefined) changes.due_date = input.dueDate;
      if (input.milestoneId !== undefined) changes.milestone_id = await fields.milestoneId(project, input.milestoneId);
      if (input.assigneeIds !== undefined) relations.assigneeIds = await fields.assigneeIds(project, input.assigneeIds);
      relations.labelIds = await this.labelsAfter(project, issue, input);
    }
    const before = this.deps.observers.length > 0 ? await this.deps.views.one(issue) : null;
    const updated = await this.deps.issues.update(issue.id, changes, relations);
    if (!updated) throw new GantryError('GANTRY_E_ISSUE_NOT_FOUND');
    const after = await this.deps.views.one(updated);
    if (before) await announceIssueSaved(this.deps.observers, { project, actor, before, after, at: now });
    return after;
  }

  async remove(projectRef: string, actor: UserRecord, iid: number): Promise<void> {
    const project = await this.readable(projectRef, actor);
    const issue = await this.find(project, actor, iid);
    if (!(await this.deps.planningPermissions.canDeleteIssue(project, actor))) throw accessDenied();
    if (!(await this.deps.issues.delete(issue.id))) throw new GantryError('GANTRY_E_ISSUE_NOT_FOUND');
  }

  /** `labels` replaces them all; `add_labels` and `remove_labels` change the current ones. Undefined: unchanged. */
  private async labelsAfter(project: ProjectRecord, issue: IssueRecord, input: IssueUpdateInput): Promise<number[] | undefined> {
    if (input.labels === undefined && input.addLabels === undefined && input.removeLabels === undefined) return undefined;
    const { fields } = this.deps;
    const current = input.labels !== undefined ? await fields.labelIds(project, input.labels) : ((await this.deps.issues.labelsOf([issue.id])).get(issue.id) ?? []).map((label) => label.id);
    const added = input.addLabels ? await fields.labelIds(project, input.addLabels) : [];
    const removed = new Set(input.removeLabels ? await fields.labelIds(project, input.removeLabels) : []);
    return [...new Set([...current, ...added])].filter((id) => !removed.has(id));
  }

  private async readable(projectRef: string, actor: Actor): Promise<ProjectRecord> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (!(await this.deps.planningPermissions.canReadIssues(project, actor))) throw accessDenied();
    return project;
  }

  private find(project: ProjectRecord, actor: Actor, iid: number): Promise<IssueRecord> {
    return this.deps.visibleIssues.inProject(project, actor, iid);
  }
}
