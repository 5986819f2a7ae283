import type { CoordinatorContext } from './context.ts';
import type { NewTask } from '../storage/types-tasks.ts';
import { MergeRequestPermissions } from './services/access/merge-request-permissions.ts';
import { MergeRequestChangesCount, MergeRequestDiffs } from './services/planning/merge-requests/changes.ts';
import { MergeStatusCheck } from './services/planning/merge-requests/merge-status.ts';
import type { MergeRequestObserver } from './services/planning/merge-requests/observers.ts';
import { MergeRequestRefresher } from './services/planning/merge-requests/refresh.ts';
import { VisibleMergeRequests } from './services/planning/merge-requests/visible.ts';

/**
 * The git side of merge requests: the refresher (an observer of saved requests and a push
 * recorder) and the merge status check, whose task runs on the CI area's task worker.
 * `observers` are told of every refresh; the array may be filled after this returns
 * (`mergeRequestRefreshObservers`).
 */
export function buildMergeRequestGit(context: CoordinatorContext, queue: { enqueue(task: NewTask): Promise<unknown> }, observers: MergeRequestObserver[] = []) {
  const { stores, repositories, logger } = context;
  const mergeStatusCheck = new MergeStatusCheck({ queue, mergeRequests: stores.mergeRequests, projects: stores.projects, repositories });
  const mergeRequestRefresher = new MergeRequestRefresher({
    mergeRequests: stores.mergeRequests, projects: stores.projects, users: stores.users, repositories, mergeStatus: mergeStatusCheck, observers, logger,
  });
  return { mergeStatusCheck, mergeRequestRefresher, mergeRequestRefreshObservers: observers };
}

/** `.../changes`, `.../diffs`, `.../commits` of merge requests, and `changes_count` for the request's views. */
export function buildMergeRequestDiffs(context: CoordinatorContext) {
  const { stores, lookup, permissions, repositories } = context;
  const visible = new VisibleMergeRequests({ lookup, mergeRequests: stores.mergeRequests, mergeRequestPermissions: new MergeRequestPermissions(permissions) });
  return {
    mergeRequestDiffs: new MergeRequestDiffs({ visible, repositories, namespaces: stores.namespaces }),
    mergeRequestChangesCount: new MergeRequestChangesCount({ repositories }),
  };
}
