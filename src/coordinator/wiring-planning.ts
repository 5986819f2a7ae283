import type { CoordinatorContext } from './context.ts';
import { MergeRequestPermissions } from './services/access/merge-request-permissions.ts';
import { PlanningPermissions } from './services/access/planning-permissions.ts';
import { LabelsService } from './services/planning/labels.ts';
import { MilestonesService } from './services/planning/milestones.ts';
import { IssueFields } from './services/planning/issue-fields.ts';
import { IssueViews } from './services/planning/issue-views.ts';
import { IssuesService } from './services/planning/issues.ts';
import { PlanningOwners } from './services/planning/planning-owner.ts';
import type { IssueObserver } from './services/planning/issue-observers.ts';
import { SystemNotes } from './services/planning/system-notes.ts';
import { IssueSystemNotes } from './services/planning/issue-system-notes.ts';
import { DiscussionsService } from './services/planning/discussions.ts';
import { NotesService } from './services/planning/notes.ts';
import { AwardEmojiService } from './services/planning/award-emoji.ts';
import { TimeTrackingService } from './services/planning/time-tracking.ts';
import { VisibleIssues } from './services/planning/visible-issues.ts';
import { VisibleMergeRequests } from './services/planning/merge-requests/visible.ts';
import { Noteables } from './services/planning/noteables.ts';
import type { MergeRequestObserver } from './services/planning/merge-requests/observers.ts';
import type { MergeRequestNoteObserver } from './services/planning/noteables.ts';
import { MergeRequestSystemNotes } from './services/planning/merge-requests/system-notes.ts';
import { MergeRequestTodos } from './services/planning/todos-merge-request-observer.ts';
import { CommitReferences } from './services/planning/commit-references.ts';
import { IssueMove } from './services/planning/issue-move.ts';
import { LabelPromote } from './services/planning/label-promote.ts';
import type { NewTask } from '../storage/types-tasks.ts';
import { SubscriptionsService } from './services/planning/subscriptions.ts';
import { TodosObserver } from './services/planning/todos-observer.ts';
import { TodosService } from './services/planning/todos.ts';
import { buildMergeRequestServices } from './wiring-merge-requests.ts';
import type { MergeStatusCheck } from './services/planning/merge-requests/merge-status.ts';
import { buildTaskComments } from './wiring-integrations.ts';
import { RepositoryAccess } from './services/repository/access.ts';
import { MergeService } from './services/planning/merge-requests/merge.ts';
import { MergeRequestRebase } from './services/planning/merge-requests/rebase.ts';
import { AutoMerge } from './services/planning/merge-requests/merge-when-pipeline-succeeds.ts';
import { StaleMergeLocks } from './services/planning/merge-requests/stale-merge-locks.ts';
import { ClosesIssues } from './services/planning/merge-requests/closes-issues.ts';
import { MergeLookups } from './services/planning/merge-requests/merge-lookups.ts';
import { IssueMergeRequests, MergeRequestIssueLinker } from './services/planning/merge-requests/issue-links.ts';

/** Observers from other areas (webhooks) that hear issues and notes after the planning area's own. */
export interface PlanningListeners {
  issueObservers?: readonly IssueObserver[];
  mergeRequestNoteObservers?: readonly MergeRequestNoteObserver[];
  /** Where the lists' `with_merge_status_recheck` queues checks. */
  mergeStatusChecks?: Pick<MergeStatusCheck, 'schedule'>;
}

/** The planning area: labels, milestones and issues, subscriptions and todos. */
export function buildPlanningServices(context: CoordinatorContext, mergeRequestObservers: MergeRequestObserver[] = [], listeners: PlanningListeners = {}) {
  const { stores, lookup, permissions } = context;
  const planningPermissions = new PlanningPermissions(permissions);
  const owners = new PlanningOwners({ lookup, namespaces: stores.namespaces, planningPermissions });
  const scope = { namespaces: stores.namespaces, members: stores.members, projectQueries: stores.projectQueries, groupGroupLinks: stores.groupGroupLinks };
  const labels = new LabelsService({ ...scope, labels: stores.labels, issues: stores.issues, mergeRequests: stores.mergeRequests, projects: stores.projects, owners, planningPermissions, permissions });
  const milestones = new MilestonesService({ milestones: stores.milestones, namespaces: stores.namespaces, owners });
  const fields = new IssueFields({ labels: stores.labels, milestones: stores.milestones, users: stores.users, namespaces: stores.namespaces, permissions });
  const views = new IssueViews({ issues: stores.issues, milestones: stores.milestones, users: stores.users, projects: stores.projects, namespaces: stores.namespaces, notes: stores.notes, awardEmoji: stores.awardEmoji, mergeRequestIssueLinks: stores.mergeRequestIssueLinks });
  const systemNotes = new SystemNotes({ notes: stores.notes });
  const observers: IssueObserver[] = [];
  observers.push(new IssueSystemNotes({ systemNotes }));
  observers.push(new TodosObserver({ todos: stores.todos, users: stores.users, planningPermissions }));
  observers.push(...(listeners.issueObservers ?? []));
  const visibleIssues = new VisibleIssues({ lookup, issues: stores.issues, planningPermissions });
  const issues = new IssuesService({ ...scope, issues: stores.issues, lookup, permissions, planningPermissions, fields, views, milestones, observers, visibleIssues, users: stores.users, notes: stores.notes });
  const mergeRequestPermissions = new MergeRequestPermissions(permissions);
  const visibleMergeRequests = new VisibleMergeRequests({ lookup, mergeRequests: stores.mergeRequests, mergeRequestPermissions });
  const noteables = new Noteables({ lookup, planningPermissions, visibleIssues, visibleMergeRequests });
  const mergeRequestTodos = new MergeRequestTodos({ todos: stores.todos, users: stores.users, mergeRequestPermissions });
  const mergeRequestSystemNotes = new MergeRequestSystemNotes({ systemNotes, users: stores.users, milestones: stores.milestones });
  /** For the merge request services to announce to (system notes, then todos), as the issues service does. */
  const mergeRequestActivityObservers: MergeRequestObserver[] = [mergeRequestSystemNotes, mergeRequestTodos];
  const notes = new NotesService({ notes: stores.notes, users: stores.users, planningPermissions, noteables, views, observers, mergeRequestObservers: [mergeRequestTodos, ...(listeners.mergeRequestNoteObservers ?? [])] });
  const discussions = new DiscussionsService({ notes: stores.notes, noteService: notes, noteables, planningPermissions, mergeRequestPermissions, repositories: context.repositories });
  const awardEmoji = new AwardEmojiService({ awardEmoji: stores.awardEmoji, users: stores.users, noteables, planningPermissions });
  const timeTracking = new TimeTrackingService({ issues: stores.issues, mergeRequests: stores.mergeRequests, timelogs: stores.timelogs, noteables, planningPermissions, mergeRequestPermissions, systemNotes });
  const issueMove = new IssueMove({
    lookup, issues: stores.issues, labels: stores.labels, milestones: stores.milestones, namespaces: stores.namespaces, moves: stores.issueMoves, planningPermissions, fields, views, systemNotes, visibleIssues,
  });
  const labelPromote = new LabelPromote({ owners, labels: stores.labels, namespaces: stores.namespaces, promotions: stores.labelPromotions, permissions });
  const subscriptions = new SubscriptionsService({ subscriptions: stores.subscriptions, issues, labels, visibleMergeRequests, mergeRequests: stores.mergeRequests, namespaces: stores.namespaces });
  const todos = new TodosService({ ...scope, todos: stores.todos, issues: stores.issues, mergeRequests: stores.mergeRequests, visibleMergeRequests, visibleIssues, views, users: stores.users, projects: stores.projects, permissions, planningPermissions });
  const mergeRequestArea = buildMergeRequestServices(context, { issueFields: fields, milestones, mergeStatusChecks: listeners.mergeStatusChecks }, mergeRequestObservers);
  mergeRequestArea.mergeRequestObservers.push(...mergeRequestActivityObservers);
  const issueMergeRequests = new IssueMergeRequests({ visibleIssues, mergeRequests: mergeRequestArea.mergeRequests });
  return { labels, milestones, issues, systemNotes, notes, discussions, awardEmoji, timeTracking, issueMove, labelPromote, subscriptions, todos, mergeRequestSystemNotes, issueMergeRequests, ...mergeRequestArea };
}

/** Issue references in pushed commits; its task handler runs on the CI area's task worker. */
export function buildCommitReferences(context: CoordinatorContext, queue: { enqueue(task: NewTask): Promise<unknown> }): CommitReferences {
  const { stores, lookup, permissions, repositories } = context;
  return new CommitReferences({
    queue,
    lookup,
    projects: stores.projects,
    users: stores.users,
    emails: stores.userEmails,
    namespaces: stores.namespaces,
    repositories,
    issues: stores.issues,
    planningPermissions: new PlanningPermissions(permissions),
    references: stores.commitReferences,
    systemNotes: new SystemNotes({ notes: stores.notes }),
    taskComments: buildTaskComments(context),
    comments: { notes: stores.notes, externalUrl: context.config.externalUrl },
  });
}

/**
 * Merging merge requests: the merge service, the rebase, merge when pipeline succeeds (its task handler runs
 * on the CI area's task worker), closes_issues (also an observer of merges), the links of requests
 * to the issues they name (an observer of saves and refreshes) and a commit's requests.
 */
export function buildMergeRequestMerging(context: CoordinatorContext, queue: { enqueue(task: NewTask): Promise<unknown> }, observers: MergeRequestObserver[] = []) {
  const { stores, lookup, permissions, repositories } = context;
  const mergeRequestPermissions = new MergeRequestPermissions(permissions);
  const visible = new VisibleMergeRequests({ lookup, mergeRequests: stores.mergeRequests, mergeRequestPermissions });
  const planningPermissions = new PlanningPermissions(permissions);
  const systemNotes = new SystemNotes({ notes: stores.notes });
  const views = new IssueViews({ issues: stores.issues, milestones: stores.milestones, users: stores.users, projects: stores.projects, namespaces: stores.namespaces, notes: stores.notes, awardEmoji: stores.awardEmoji, mergeRequestIssueLinks: stores.mergeRequestIssueLinks });
  const closesIssues = new ClosesIssues({
    visible, repositories, namespaces: stores.namespaces, views, lookup, issues: stores.issues, planningPermissions, references: stores.commitReferences, systemNotes,
  });
  const mergeRequestMerge = new MergeService({
    visible, mergeRequests: stores.mergeRequests, projects: stores.projects, namespaces: stores.namespaces, users: stores.users, pipelines: stores.pipelines,
    repositories, branchRules: context.protectedBranches, events: context.events, observers, notes: stores.notes,
  });
  const mergeRequestRebase = new MergeRequestRebase({
    visible, mergeRequests: stores.mergeRequests, projects: stores.projects, repositories, branchRules: context.protectedBranches, events: context.events,
  });
  const autoMerge = new AutoMerge({
    visible, merges: mergeRequestMerge, mergeRequests: stores.mergeRequests, pipelines: stores.pipelines, projects: stores.projects, users: stores.users, systemNotes, queue,
  });
  const mergeLookups = new MergeLookups({
    access: new RepositoryAccess({ lookup, permissions, namespaces: stores.namespaces, repositories }),
    mergeRequestPermissions, commits: stores.mergeRequestCommits,
  });
  const staleMergeLocks = new StaleMergeLocks({ mergeRequests: stores.mergeRequests, repositories: context.repositories, queue, logger: context.logger });
  const issueLinker = new MergeRequestIssueLinker({
    closesIssues, namespaces: stores.namespaces, links: stores.mergeRequestIssueLinks, projects: stores.projects, users: stores.users, mergeRequests: stores.mergeRequests, queue, lookup, issues: stores.issues, planningPermissions, references: stores.commitReferences, systemNotes,
  });
  observers.push(closesIssues, issueLinker);
  return { mergeRequestMerge, mergeRequestRebase, autoMerge, closesIssues, issueLinker, mergeLookups, staleMergeLocks };
}
