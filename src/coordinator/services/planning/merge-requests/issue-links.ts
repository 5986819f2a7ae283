import type { MergeRequestIssueLink, MergeRequestIssueLinksStore, MergeRequestRecord, MergeRequestsStore } from '../../../../storage/types-merge-requests.ts';
import type { NewTask } from '../../../../storage/types-tasks.ts';
import type { NamespacesStore, ProjectRecord, ProjectsStore, UserRecord, UsersStore } from '../../../../storage/types.ts';
import type { TaskHandler } from '../../task-queue.ts';
import type { Page, Paged } from '../../repository/pages.ts';
import { CommitReferenceTargets, type CommitReferenceTargetsDeps } from '../commit-references-targets.ts';
import { parseCommitReferences } from '../reference-parser.ts';
import type { VisibleIssues } from '../visible-issues.ts';
import type { ClosesIssues } from './closes-issues.ts';
import type { MergeRequestObserver, MergeRequestRefreshed, MergeRequestSaved } from './observers.ts';
import type { MergeRequestsService } from './service.ts';
import type { MergeRequestView } from './views.ts';
import { projectFullPath } from '../../namespaces/project-full-path.ts';

export interface MergeRequestIssueLinkerDeps extends CommitReferenceTargetsDeps {
  closesIssues: Pick<ClosesIssues, 'closing'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
  links: MergeRequestIssueLinksStore;
  projects: Pick<ProjectsStore, 'findById'>;
  users: Pick<UsersStore, 'findById'>;
  mergeRequests: Pick<MergeRequestsStore, 'findByIds'>;
  queue: { enqueue(task: NewTask): Promise<unknown> };
}

/**
 * The durable task that links requests again: one request after its source moved (payload
 * LinkIssuesTask), or every request (payload null: queued by migration 045 for the requests
 * opened before the links were kept).
 */
export const LINK_ISSUES_TASK = 'merge-requests.link-issues';
interface LinkIssuesTask {
  mergeRequestId: number;
  actorId: number;
}
const BACKFILL_BATCH = 100;
/** Times a task works the links out again when the request changed meanwhile. */
const RELINK_ATTEMPTS = 5;

/**
 * Keeps GitLab's merge_requests_closing_issues: the issues a request's title and description
 * name (`#1`, `p#1`, `g/p#1`), marked closing when `closes_issues` lists them (a closing phrase
 * in the title, description or commits, into the default branch). Written as the one who made
 * the change sees the issues, when the request is created or its title, description or target
 * branch change; after its source moved (a push, a reopen) by a task, as GitLab's refresh does
 * it in the background, so that a push is not acknowledged later for it. A refresh by the
 * system keeps the links as they were.
 */
export class MergeRequestIssueLinker implements MergeRequestObserver {
  private readonly targets: CommitReferenceTargets;

  constructor(private readonly deps: MergeRequestIssueLinkerDeps) {
    this.targets = new CommitReferenceTargets(deps);
  }

  async mergeRequestSaved({ project, actor, before, after }: MergeRequestSaved): Promise<void> {
    const [was, is] = [before?.record, after.record];
    if (was && was.title === is.title && was.description === is.description && was.target_branch === is.target_branch) return;
    await this.relink(project, is, actor);
  }

  async mergeRequestRefreshed({ mergeRequest, sourceMoved, actor }: MergeRequestRefreshed): Promise<void> {
    if (!sourceMoved || !actor) return;
    const payload: LinkIssuesTask = { mergeRequestId: mergeRequest.id, actorId: actor.id };
    await this.deps.queue.enqueue({ kind: LINK_ISSUES_TASK, payload, maxAttempts: 3, dedupeKey: `${LINK_ISSUES_TASK}:${mergeRequest.id}` });
  }

  /** Handles LINK_ISSUES_TASK. Idempotent: a retry after a crash starts again. */
  linkIssuesHandler(): TaskHandler {
    return async (task, { signal }) => {
      const payload = task.payload as LinkIssuesTask | null;
      if (payload) await this.relinkOne(payload);
      else await this.relinkAll(signal);
    };
  }

  /**
   * The links of the request as it is when they are written: an edit saved while they were
   * worked out (it wrote its own) makes them be worked out again from the edited request.
   */
  private async relinkOne({ mergeRequestId, actorId }: LinkIssuesTask): Promise<void> {
    const actor = await this.deps.users.findById(actorId);
    for (let attempt = 0; attempt < RELINK_ATTEMPTS && actor; attempt += 1) {
      const [mergeRequest] = await this.deps.mergeRequests.findByIds([mergeRequestId]);
      const project = mergeRequest ? await this.deps.projects.findById(mergeRequest.project_id) : undefined;
      if (!mergeRequest || !project) return;
      if (await this.relink(project, mergeRequest, actor, mergeRequest.lock_version)) return;
    }
  }

  /** Every request, as its author sees the issues (who last changed it is not kept). */
  private async relinkAll(signal: AbortSignal): Promise<void> {
    for (let afterId = 0; ; ) {
      const batch = await this.deps.links.mergeRequestsAfter(afterId, BACKFILL_BATCH);
      for (const mergeRequest of batch) {
        signal.throwIfAborted();
        const [project, author] = await Promise.all([this.deps.projects.findById(mergeRequest.project_id), this.deps.users.findById(mergeRequest.author_id)]);
        if (project && author) await this.relink(project, mergeRequest, author);
      }
      if (batch.length < BACKFILL_BATCH) return;
      afterId = batch[batch.length - 1]!.id;
    }
  }

  private async relink(project: ProjectRecord, mergeRequest: MergeRequestRecord, actor: UserRecord, readAtVersion?: number): Promise<boolean> {
    const links = new Map<number, MergeRequestIssueLink>();
    const projectPath = await projectFullPath(this.deps.namespaces, project);
    const { mentioned } = parseCommitReferences(`${mergeRequest.title}\n${mergeRequest.description ?? ''}`);
    for (const reference of mentioned) {
      const target = await this.targets.resolve(project, projectPath, reference, actor);
      if (target) links.set(target.issue.id, { issueId: target.issue.id, closes: false });
    }
    for (const target of await this.deps.closesIssues.closing(project, mergeRequest, actor)) links.set(target.issue.id, { issueId: target.issue.id, closes: true });
    return this.deps.links.replace(mergeRequest.id, [...links.values()], readAtVersion);
  }
}

export interface IssueMergeRequestsDeps {
  visibleIssues: Pick<VisibleIssues, 'find'>;
  mergeRequests: Pick<MergeRequestsService, 'listLinkedToIssue'>;
}

/** The issue's side of the links: `GET .../issues/:issue_iid/closed_by` and `.../related_merge_requests`. */
export class IssueMergeRequests {
  constructor(private readonly deps: IssueMergeRequestsDeps) {}

  /** The requests that close the issue on merge, among those the caller reads; 404 for an issue they may not see. */
  async closedBy(projectRef: string, actor: UserRecord, iid: number, page: Page): Promise<Paged<MergeRequestView>> {
    const { issue } = await this.deps.visibleIssues.find(projectRef, actor, iid);
    return this.deps.mergeRequests.listLinkedToIssue(actor, { issueId: issue.id, closing: true }, page);
  }

  /** The requests that name the issue, closing it or not, among those the caller reads. */
  async related(projectRef: string, actor: UserRecord, iid: number, page: Page): Promise<Paged<MergeRequestView>> {
    const { issue } = await this.deps.visibleIssues.find(projectRef, actor, iid);
    return this.deps.mergeRequests.listLinkedToIssue(actor, { issueId: issue.id, closing: false }, page);
  }
}
