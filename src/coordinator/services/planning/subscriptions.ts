import { GantryError } from '../../../shared/errors.ts';
import type { UserRecord } from '../../../storage/types.ts';
import type { SubscriptionsStore } from '../../../storage/types-todos.ts';
import type { Lookup } from '../access/lookup.ts';
import type { IssueView } from './issue-views.ts';
import type { IssuesService } from './issues.ts';
import type { LabelRef, LabelsService, LabelView } from './labels.ts';

export interface SubscriptionsServiceDeps {
  subscriptions: SubscriptionsStore;
  issues: Pick<IssuesService, 'get'>;
  labels: Pick<LabelsService, 'get'>;
  lookup: Pick<Lookup, 'readableProject'>;
}

/** The answer of a subscribe or unsubscribe: `changed` false is GitLab's 304 Not Modified. */
export interface SubscriptionChange<T> {
  changed: boolean;
  subject: T;
  subscribed: boolean;
}

/**
 * Subscriptions to issues and labels, by GitLab's rule (Subscribable): the caller's explicit
 * choice wins (an unsubscribe outranks everything); without one, an issue's participants (its
 * author, its assignees, whoever wrote a note on it) are subscribed, and nobody is to a label.
 * Whoever reads the issue or label may subscribe to it.
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

  async setOnLabel(projectRef: string, actor: UserRecord, labelRef: LabelRef, subscribe: boolean): Promise<SubscriptionChange<LabelView>> {
    const view = await this.deps.labels.get({ kind: 'project', ref: projectRef }, actor, labelRef);
    const current = (await this.labelsSubscribed([view.label.id], actor)).has(view.label.id);
    if (current === subscribe) return { changed: false, subject: view, subscribed: current };
    // One choice per user and label: a group label's holds in every project that sees it.
    await this.deps.subscriptions.set(actor.id, 'Label', view.label.id, view.label.project_id, subscribe, new Date().toISOString());
    return { changed: true, subject: view, subscribed: subscribe };
  }

  /** Merge requests do not exist yet: every iid of a readable project is unknown. */
  async setOnMergeRequest(projectRef: string, actor: UserRecord): Promise<never> {
    await this.deps.lookup.readableProject(projectRef, actor);
    throw new GantryError('GANTRY_E_MERGE_REQUEST_NOT_FOUND');
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
