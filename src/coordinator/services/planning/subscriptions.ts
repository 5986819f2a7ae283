import type { NamespacesStore, ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { MergeRequestRecord, MergeRequestsStore } from '../../../storage/types-merge-requests.ts';
import type { SubscriptionsStore } from '../../../storage/types-todos.ts';
import type { VisibleMergeRequests } from './merge-requests/visible.ts';
import type { IssueView } from './issue-views.ts';
import type { IssuesService } from './issues.ts';
import type { LabelRef, LabelsService, LabelView } from './labels.ts';
import type { OwnerRef } from './planning-owner.ts';

export interface SubscriptionsServiceDeps {
  subscriptions: SubscriptionsStore;
  issues: Pick<IssuesService, 'get'>;
  labels: Pick<LabelsService, 'get'>;
  visibleMergeRequests: Pick<VisibleMergeRequests, 'find'>;
  mergeRequests: Pick<MergeRequestsStore, 'assigneesOf' | 'reviewersOf'>;
  namespaces: Pick<NamespacesStore, 'findByIds'>;
}

/** A merge request the caller sees, with its project (what a subscribe answers with). */
export interface SubscribedMergeRequest {
  project: ProjectRecord;
  /** `group/project`, for the request's web_url. */
  projectPath: string;
  mergeRequest: MergeRequestRecord;
}

/** The answer of a subscribe or unsubscribe: `changed` false is GitLab's 304 Not Modified. */
export interface SubscriptionChange<T> {
  changed: boolean;
  subject: T;
  subscribed: boolean;
}

/**
 * Subscriptions to issues, merge requests and labels, by GitLab's rule (Subscribable): the
 * caller's explicit choice wins (an unsubscribe outranks everything); without one, an issue's or
 * request's participants (its author, its assignees, a request's reviewers, whoever wrote a note
 * on it) are subscribed, and nobody is to a label. Whoever reads one may subscribe to it.
 */
export class SubscriptionsService {
  constructor(private readonly deps: SubscriptionsServiceDeps) {}

  async setOnIssue(projectRef: string, actor: UserRecord, iid: number, subscribe: boolean): Promise<SubscriptionChange<IssueView>> {
    const view = await this.deps.issues.get(projectRef, actor, iid);
    const current = await this.issueSubscribed(view, actor);
    if (current === subscribe) return { changed: false, subject: view, subscribed: current };
    await this.deps.subscriptions.set(actor.id, 'Issue', view.issue.id, view.issue.project_id, subscribe, new Date().toISOString());
    return { changed: true, subject: view, subscribed: subscribe };
  }

  /** On a label of a project (its own or a group label it sees) or of a group. */
  async setOnLabel(owner: OwnerRef, actor: UserRecord, labelRef: LabelRef, subscribe: boolean): Promise<SubscriptionChange<LabelView>> {
    const view = await this.deps.labels.get(owner, actor, labelRef);
    const current = (await this.labelsSubscribed([view.label.id], actor)).has(view.label.id);
    if (current === subscribe) return { changed: false, subject: view, subscribed: current };
    // One choice per user and label: a group label's holds in every project that sees it.
    await this.deps.subscriptions.set(actor.id, 'Label', view.label.id, view.label.project_id, subscribe, new Date().toISOString());
    return { changed: true, subject: view, subscribed: subscribe };
  }

  async setOnMergeRequest(projectRef: string, actor: UserRecord, iid: number, subscribe: boolean): Promise<SubscriptionChange<SubscribedMergeRequest>> {
    const { project, mergeRequest } = await this.deps.visibleMergeRequests.find(projectRef, actor, iid);
    const [namespace] = await this.deps.namespaces.findByIds([project.namespace_id]);
    const subject = { project, mergeRequest, projectPath: `${namespace?.full_path ?? ''}/${project.path}` };
    const current = await this.mergeRequestSubscribed(subject.mergeRequest, actor);
    if (current === subscribe) return { changed: false, subject, subscribed: current };
    await this.deps.subscriptions.set(actor.id, 'MergeRequest', subject.mergeRequest.id, subject.mergeRequest.project_id, subscribe, new Date().toISOString());
    return { changed: true, subject, subscribed: subscribe };
  }

  /** `subscribed` of a single merge request's answer: the caller's choice, else whether they take part in it. */
  async mergeRequestSubscribed(mergeRequest: MergeRequestRecord, actor: UserRecord | null): Promise<boolean> {
    if (!actor) return false;
    const choice = (await this.deps.subscriptions.choices(actor.id, 'MergeRequest', [mergeRequest.id])).get(mergeRequest.id);
    if (choice !== undefined) return choice;
    if (mergeRequest.author_id === actor.id) return true;
    const [assignees, reviewers] = await Promise.all([this.deps.mergeRequests.assigneesOf([mergeRequest.id]), this.deps.mergeRequests.reviewersOf([mergeRequest.id])]);
    if ([...(assignees.get(mergeRequest.id) ?? []), ...(reviewers.get(mergeRequest.id) ?? [])].includes(actor.id)) return true;
    return this.deps.subscriptions.hasNoted(actor.id, mergeRequest.id, 'MergeRequest');
  }

  /** `subscribed` of a single issue's answer: the caller's choice, else whether they take part in it. */
  async issueSubscribed(view: IssueView, actor: UserRecord | null): Promise<boolean> {
    if (!actor) return false;
    const choice = (await this.deps.subscriptions.choices(actor.id, 'Issue', [view.issue.id])).get(view.issue.id);
    if (choice !== undefined) return choice;
    if (view.issue.author_id === actor.id || view.assignees.some((assignee) => assignee.id === actor.id)) return true;
    return this.deps.subscriptions.hasNoted(actor.id, view.issue.id);
  }

  /** The labels among these the caller subscribed to, in one statement. */
  async labelsSubscribed(labelIds: readonly number[], actor: UserRecord | null): Promise<Set<number>> {
    if (!actor) return new Set();
    const choices = await this.deps.subscriptions.choices(actor.id, 'Label', labelIds);
    return new Set([...choices].flatMap(([id, subscribed]) => (subscribed ? [id] : [])));
  }
}
