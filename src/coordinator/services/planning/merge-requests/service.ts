import { accessDenied, GantryError } from '../../../../shared/errors.ts';
import type { ProjectRecord, ProjectsStore, UserRecord, UsersStore } from '../../../../storage/types.ts';
import type { MergeRequestListFilter, MergeRequestRecord, MergeRequestsStore, NegatedMergeRequestFilter } from '../../../../storage/types-merge-requests.ts';
import type { SubscriptionsStore } from '../../../../storage/types-todos.ts';
import type { Lookup } from '../../access/lookup.ts';
import type { MergeRequestPermissions } from '../../access/merge-request-permissions.ts';
import type { Actor, Permissions } from '../../access/permissions.ts';
import { actorProjectAccess, type ProjectScopeDeps } from '../../namespaces/project-scope.ts';
import type { Page, Paged } from '../../repository/pages.ts';
import { negatedFilter, userIdOf, type NegatedIssuableQuery } from '../issuable-negation.ts';
import type { MilestonesService } from '../milestones.ts';
import type { OwnerRef } from '../planning-owner.ts';
import { awaitsCheck, type MergeStatusCheck } from './merge-status.ts';
import type { MergeRequestView, MergeRequestViews } from './views.ts';
import type { VisibleMergeRequests } from './visible.ts';
import type { NotesStore } from '../../../../storage/types-notes.ts';

/** The filters of the merge request lists, as the API reads them (everything but where). */
export type MergeRequestQuery = Omit<MergeRequestListFilter, 'projects' | 'reactedBy' | 'not'> & {
  scope?: 'created_by_me' | 'assigned_to_me' | 'all';
  authorUsername?: string;
  assigneeUsername?: string;
  reviewerUsername?: string;
  /** The caller's own awards: an emoji name, `any` or `none`. */
  myReactionEmoji?: string;
  /** `with_merge_status_recheck`: queue a check for each listed request not checked yet (GitLab 13.0; Developers and up as 15.11). */
  recheckMergeStatus?: boolean;
  not?: NegatedMergeRequestQuery;
};

/** `not[...]` as the API reads it: the issues' negations, and the reviewer by id or username. */
export type NegatedMergeRequestQuery = NegatedIssuableQuery & { reviewerId?: number; reviewerUsername?: string };

/** The number of changed files of a request, as GitLab shows it (`"1000+"` past its cap); null until known. */
export interface MergeRequestChangesCount {
  changesCount(project: ProjectRecord, view: MergeRequestView): Promise<string | null>;
}

/** A single request's answer: the view, and what only the single answer shows. */
export interface MergeRequestDetail {
  view: MergeRequestView;
  subscribed: boolean;
  changesCount: string | null;
  /** `user.can_merge`: whether the caller may push to the target branch (Developer and up here). */
  canMerge: boolean;
  /** GitLab's `first_contribution`: an author at most a Guest of the project, with no merged request in it yet. */
  firstContribution: boolean;
}

export interface MergeRequestsServiceDeps extends ProjectScopeDeps {
  mergeRequests: Pick<MergeRequestsStore, 'list' | 'delete'>;
  users: Pick<UsersStore, 'findByUsername' | 'findByIds'>;
  subscriptions: Pick<SubscriptionsStore, 'choices'>;
  lookup: Pick<Lookup, 'readableProject' | 'readableGroup'>;
  permissions: Pick<Permissions, 'projectListingScope'>;
  mergeRequestPermissions: MergeRequestPermissions;
  milestones: Pick<MilestonesService, 'resolve'>;
  views: MergeRequestViews;
  visible: Pick<VisibleMergeRequests, 'inProject'>;
  changesCount: MergeRequestChangesCount;
  notes: Pick<NotesStore, 'authorIdsOf'>;
  projects: Pick<ProjectsStore, 'findByIds'>;
  /** Queues merge status checks (`with_merge_status_recheck`); without it the parameter does nothing. */
  mergeStatusChecks?: Pick<MergeStatusCheck, 'schedule'>;
}

/**
 * Reading and deleting merge requests: whoever reads a project with merge requests enabled
 * reads its requests; the global list needs a signed-in caller; Owners delete.
 */
export class MergeRequestsService {
  constructor(private readonly deps: MergeRequestsServiceDeps) {}

  /** `GET /merge_requests`: every project the caller reads; by default only the requests they opened. */
  async listAll(actor: UserRecord, query: MergeRequestQuery, page: Page): Promise<Paged<MergeRequestView>> {
    const access = await actorProjectAccess(this.deps, actor);
    const projects = { visibleScope: this.deps.permissions.projectListingScope(actor, access) };
    return this.list(actor, { ...query, scope: query.scope ?? 'created_by_me' }, projects, page);
  }

  /** The requests naming an issue (closing it, with `closing`), in every project the caller reads; the issue's own visibility is the caller's to check. */
  async listLinkedToIssue(actor: UserRecord, linkedIssue: { issueId: number; closing: boolean }, page: Page): Promise<Paged<MergeRequestView>> {
    const access = await actorProjectAccess(this.deps, actor);
    const projects = { visibleScope: this.deps.permissions.projectListingScope(actor, access) };
    return this.list(actor, { linkedIssue, orderBy: 'created_at', sort: 'desc' }, projects, page);
  }

  async listGroup(groupRef: string, actor: Actor, query: MergeRequestQuery, page: Page): Promise<Paged<MergeRequestView>> {
    const group = await this.deps.lookup.readableGroup(groupRef, actor);
    const access = await actorProjectAccess(this.deps, actor);
    const namespaceIds = [group.id, ...(await this.deps.namespaces.descendantIds(group.id))];
    return this.list(actor, query, { namespaceIds, visibleScope: this.deps.permissions.projectListingScope(actor, access) }, page);
  }

  async listProject(projectRef: string, actor: Actor, query: MergeRequestQuery, page: Page): Promise<Paged<MergeRequestView>> {
    const project = await this.readable(projectRef, actor);
    return this.list(actor, query, { projectIds: [project.id], visibleScope: null }, page);
  }

  /** `GET .../milestones/:milestone_id/merge_requests`: the milestone's requests in the projects the caller reads. */
  async listMilestone(ownerRef: OwnerRef, actor: Actor, milestoneId: number, page: Page): Promise<Paged<MergeRequestView>> {
    const { owner, milestone } = await this.deps.milestones.resolve(ownerRef, actor, milestoneId);
    const query: MergeRequestQuery = { milestoneId: milestone.id, orderBy: 'created_at', sort: 'desc' };
    if (owner.kind === 'project') return this.listProject(String(owner.project.id), actor, query, page);
    return this.listGroup(String(owner.group.id), actor, query, page);
  }

  private async list(actor: Actor, query: MergeRequestQuery, projects: MergeRequestListFilter['projects'], page: Page): Promise<Paged<MergeRequestView>> {
    const { scope, myReactionEmoji, authorUsername, assigneeUsername, reviewerUsername, recheckMergeStatus, not, ...filter } = query;
    const mine = !actor || scope === undefined || scope === 'all' ? {} : scope === 'created_by_me' ? { authorId: actor.id } : { assigneeId: actor.id };
    // A username names one user; an unknown one matches no request.
    const named = { authorId: authorUsername, assigneeId: assigneeUsername, reviewerId: reviewerUsername };
    const byName: Partial<Record<keyof typeof named, number>> = {};
    for (const [key, username] of Object.entries(named) as Array<[keyof typeof named, string | undefined]>) {
      if (username === undefined) continue;
      const user = await this.deps.users.findByUsername(username);
      if (!user) return { items: [], total: 0 };
      byName[key] = user.id;
    }
    // The scope and the author or assignee filters all apply, as in GitLab's finder: another user under "mine" matches nothing.
    const wanted = { authorId: byName.authorId ?? filter.authorId, assigneeId: byName.assigneeId ?? filter.assigneeId };
    const clashes = (Object.entries(mine) as Array<[keyof typeof wanted, number]>).some(([key, id]) => wanted[key] !== undefined && wanted[key] !== 'any' && wanted[key] !== id);
    if (clashes) return { items: [], total: 0 };
    const reactedBy = actor && myReactionEmoji !== undefined ? { reactedBy: { userId: actor.id, emoji: myReactionEmoji } } : {};
    const negated = not ? { not: await this.negated(not, actor) } : {};
    const { items, total } = await this.deps.mergeRequests.list({ ...filter, ...byName, projects, ...mine, ...reactedBy, ...negated }, page);
    if (recheckMergeStatus === true) await this.recheckMergeStatus(items, actor);
    return { items: await this.deps.views.many(items), total };
  }

  /** `not[...]` for the store: a username that names nobody leaves nothing out; so does an emoji without a caller. */
  private async negated(not: NegatedMergeRequestQuery, actor: Actor): Promise<NegatedMergeRequestFilter> {
    const { reviewerId, reviewerUsername, ...common } = not;
    return { ...(await negatedFilter(this.deps.users, common, actor)), reviewerId: reviewerId ?? (await userIdOf(this.deps.users, reviewerUsername)) };
  }

  /** GitLab's `check_mergeability(async: true)` for each open request of the page not checked yet, in the projects where the caller is a Developer or more. */
  private async recheckMergeStatus(records: readonly MergeRequestRecord[], actor: Actor): Promise<void> {
    const checks = this.deps.mergeStatusChecks;
    const due = records.filter((record) => record.state === 'opened' && awaitsCheck(record.merge_status));
    if (!checks || !actor || due.length === 0) return;
    const projects = await this.deps.projects.findByIds([...new Set(due.map((record) => record.project_id))]);
    const allowed = new Set<number>();
    for (const project of projects) if (await this.deps.mergeRequestPermissions.canAdminMergeRequests(project, actor)) allowed.add(project.id);
    for (const record of due) if (allowed.has(record.project_id)) await checks.schedule(record);
  }

  async get(projectRef: string, actor: Actor, iid: number): Promise<MergeRequestDetail> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    const view = await this.deps.views.one(await this.deps.visible.inProject(project, actor, iid));
    return this.detail(project, view, actor);
  }

  /**
   * The single answer's extras for a view (also the answer of create and update). `countChanges`
   * false leaves `changes_count` null for an answer that counts the files from its own diff.
   */
  async detail(project: ProjectRecord, view: MergeRequestView, actor: Actor, countChanges = true): Promise<MergeRequestDetail> {
    const [subscribed, changesCount, canMerge, firstContribution] = await Promise.all([
      this.subscribed(view, actor),
      countChanges ? this.deps.changesCount.changesCount(project, view) : null,
      this.deps.mergeRequestPermissions.canAdminMergeRequests(project, actor),
      this.firstContribution(project, view),
    ]);
    return { view, subscribed, changesCount, canMerge, firstContribution };
  }

  /** GitLab 13–15's `first_contribution?`: false for an author above Guest, else whether they have no merged request in the project (so false once this one merged). */
  private async firstContribution(project: ProjectRecord, view: MergeRequestView): Promise<boolean> {
    if (!view.author || (await this.deps.mergeRequestPermissions.isReporterOrAbove(project, view.author))) return false;
    const merged = await this.deps.mergeRequests.list(
      { projects: { projectIds: [project.id], visibleScope: null }, state: 'merged', authorId: view.author.id, orderBy: 'created_at', sort: 'desc' },
      { offset: 0, limit: 1 },
    );
    return merged.total === 0;
  }

  /** `GET .../participants`: the author, assignees, reviewers and the authors of notes everyone reads (not system, not internal), each once. */
  async participants(projectRef: string, actor: Actor, iid: number): Promise<UserRecord[]> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    const view = await this.deps.views.one(await this.deps.visible.inProject(project, actor, iid));
    const people = new Map<number, UserRecord>();
    for (const user of [view.author, ...view.assignees, ...view.reviewers]) if (user) people.set(user.id, user);
    const commenterIds = (await this.deps.notes.authorIdsOf('MergeRequest', view.record.id)).filter((id) => !people.has(id));
    if (commenterIds.length > 0) for (const user of await this.deps.users.findByIds(commenterIds)) people.set(user.id, user);
    return [...people.values()];
  }

  async remove(projectRef: string, actor: UserRecord, iid: number): Promise<void> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    const record = await this.deps.visible.inProject(project, actor, iid);
    if (!(await this.deps.mergeRequestPermissions.canDeleteMergeRequest(project, actor))) throw accessDenied();
    if (!(await this.deps.mergeRequests.delete(record.id))) throw new GantryError('GANTRY_E_MERGE_REQUEST_NOT_FOUND');
  }

  /** `subscribed`: the caller's choice, else whether they take part (author, assignee, reviewer). */
  private async subscribed(view: MergeRequestView, actor: Actor): Promise<boolean> {
    if (!actor) return false;
    const choice = (await this.deps.subscriptions.choices(actor.id, 'MergeRequest', [view.record.id])).get(view.record.id);
    if (choice !== undefined) return choice;
    return [view.author, ...view.assignees, ...view.reviewers].some((user) => user?.id === actor.id);
  }

  private async readable(projectRef: string, actor: Actor): Promise<ProjectRecord> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (!(await this.deps.mergeRequestPermissions.canReadMergeRequests(project, actor))) throw accessDenied();
    return project;
  }
}
