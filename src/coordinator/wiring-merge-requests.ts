import type { CoordinatorContext } from './context.ts';
import { MergeRequestPermissions } from './services/access/merge-request-permissions.ts';
import type { IssueFields } from './services/planning/issue-fields.ts';
import { MergeRequestChangesCount as ChangedFilesCount, MergeRequestDiffs } from './services/planning/merge-requests/changes.ts';
import { MergeRequestDiffVersions } from './services/planning/merge-requests/diff-versions.ts';
import { MergeRequestEdits } from './services/planning/merge-requests/edits.ts';
import type { MergeStatusCheck } from './services/planning/merge-requests/merge-status.ts';
import { MergeRequestFields, type BranchTips } from './services/planning/merge-requests/fields.ts';
import type { MergeRequestObserver } from './services/planning/merge-requests/observers.ts';
import { MergeRequestsService, type MergeRequestChangesCount } from './services/planning/merge-requests/service.ts';
import { MergeRequestViews } from './services/planning/merge-requests/views.ts';
import { VisibleMergeRequests } from './services/planning/merge-requests/visible.ts';
import type { MilestonesService } from './services/planning/milestones.ts';
import { MergeRequestApprovals } from './services/planning/merge-requests/approvals.ts';

/** What the planning area lends the merge requests area. */
export interface MergeRequestPlanningParts {
  issueFields: IssueFields;
  milestones: MilestonesService;
  mergeStatusChecks?: Pick<MergeStatusCheck, 'schedule'>;
}

/**
 * The merge requests area, built once per coordinator. Observers of merge request changes
 * (system notes, todos, ref refresh, pipelines) are pushed into `mergeRequestObservers` here;
 * the services announce to them in order.
 */
export function buildMergeRequestServices(context: CoordinatorContext, planning: MergeRequestPlanningParts, mergeRequestObservers: MergeRequestObserver[] = []) {
  const { stores, lookup, permissions, repositories } = context;
  const changedFiles = new ChangedFilesCount({ repositories });
  const changesCount: MergeRequestChangesCount = { changesCount: (project, view) => changedFiles.countFor(view.record, project) };
  const branchTips: BranchTips = {
    async tipOf(projectId, branch) {
      if (!(await repositories.exists(projectId))) return null;
      return (await repositories.open(projectId).branch(branch))?.commit.id ?? null;
    },
  };
  const mergeRequestPermissions = new MergeRequestPermissions(permissions);
  const visibleMergeRequests = new VisibleMergeRequests({ lookup, mergeRequests: stores.mergeRequests, mergeRequestPermissions });
  const mergeRequestViews = new MergeRequestViews({
    mergeRequests: stores.mergeRequests, milestones: stores.milestones, users: stores.users, projects: stores.projects, namespaces: stores.namespaces, notes: stores.notes, awardEmoji: stores.awardEmoji,
    repositories, pipelines: stores.pipelines,
  });
  const fields = new MergeRequestFields({ projects: stores.projects, branchTips, issueFields: planning.issueFields });
  const scope = { namespaces: stores.namespaces, members: stores.members, projectQueries: stores.projectQueries, groupGroupLinks: stores.groupGroupLinks };
  const mergeRequests = new MergeRequestsService({
    ...scope, mergeRequests: stores.mergeRequests, users: stores.users, subscriptions: stores.subscriptions, lookup, permissions, mergeRequestPermissions,
    milestones: planning.milestones, views: mergeRequestViews, visible: visibleMergeRequests, changesCount, notes: stores.notes,
    projects: stores.projects, mergeStatusChecks: planning.mergeStatusChecks,
  });
  const mergeRequestEdits = new MergeRequestEdits({
    mergeRequests: stores.mergeRequests, lookup, mergeRequestPermissions, issueFields: planning.issueFields, fields, views: mergeRequestViews,
    visible: visibleMergeRequests, observers: mergeRequestObservers,
  });
  const mergeRequestApprovals = new MergeRequestApprovals({ visible: visibleMergeRequests, approvals: stores.mergeRequestApprovals, users: stores.users, mergeRequestPermissions });
  const mergeRequestDiffs = new MergeRequestDiffs({ visible: visibleMergeRequests, repositories, namespaces: stores.namespaces });
  const mergeRequestDiffVersions = new MergeRequestDiffVersions({ visible: visibleMergeRequests, versions: stores.mergeRequestDiffVersions, repositories, namespaces: stores.namespaces });
  return { mergeRequests, mergeRequestEdits, mergeRequestViews, mergeRequestDiffs, mergeRequestDiffVersions, mergeRequestApprovals, visibleMergeRequests, mergeRequestPermissions, mergeRequestObservers };
}
