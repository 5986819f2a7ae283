import type { CoordinatorContext } from './context.ts';
import type { NewTask } from '../storage/types-tasks.ts';
import { MergeRequestDiffVersionRecorder } from './services/planning/merge-requests/diff-versions.ts';
import { MergeStatusCheck } from './services/planning/merge-requests/merge-status.ts';
import type { MergeRequestObserver } from './services/planning/merge-requests/observers.ts';
import { MergeRequestRefresher } from './services/planning/merge-requests/refresh.ts';

/**
 * The git side of merge requests: the refresher (an observer of saved requests and a push
 * recorder) and the merge status check, whose task runs on the CI area's task worker.
 * `observers` is the one list of merge request observers (saved, refreshed, merged): the
 * refresher joins it, and the merge requests area announces to it (`mergeRequestObserverList`).
 */
export function buildMergeRequestGit(context: CoordinatorContext, queue: { enqueue(task: NewTask): Promise<unknown> }, observers: MergeRequestObserver[] = []) {
  const { stores, repositories, logger } = context;
  const mergeStatusCheck = new MergeStatusCheck({ queue, mergeRequests: stores.mergeRequests, projects: stores.projects, repositories });
  const diffVersions = new MergeRequestDiffVersionRecorder({ versions: stores.mergeRequestDiffVersions, repositories });
  const mergeRequestRefresher = new MergeRequestRefresher({
    mergeRequests: stores.mergeRequests, projects: stores.projects, users: stores.users, repositories, mergeStatus: mergeStatusCheck, diffVersions, observers, logger,
  });
  // The refresher hears of saved requests (create, reopen, retarget) through the same list.
  observers.push(mergeRequestRefresher);
  return { mergeStatusCheck, mergeRequestRefresher, mergeRequestObserverList: observers };
}
