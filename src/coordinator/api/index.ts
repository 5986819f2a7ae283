import type { FastifyInstance } from 'fastify';
import type { CoordinatorServices, EdgeConfig } from '../wiring.ts';
import { versionRoutes } from './instance/version.ts';
import { settingsRoutes } from './instance/settings.ts';
import { jobQueueRoutes } from './instance/job-queue.ts';
import { customAttributesRoutes } from './accounts/custom-attributes.ts';
import { accessTokensRoutes } from './accounts/access-tokens.ts';
import { resourceAccessTokensRoutes } from './accounts/resource-access-tokens.ts';
import { groupsRoutes } from './namespaces/groups.ts';
import { groupChangesRoutes } from './namespaces/groups-changes.ts';
import { groupDescendantsRoutes } from './namespaces/groups-descendants.ts';
import { groupTransferRoutes } from './namespaces/groups-transfer.ts';
import { projectGroupsRoutes } from './namespaces/projects-groups.ts';
import { projectStorageRoutes } from './namespaces/projects-storage.ts';
import { releaseLinksRoutes } from './repository/release-links.ts';
import { protectedTagsRoutes } from './repository/protected-tags.ts';
import { membershipsRoutes } from './namespaces/memberships.ts';
import { namespacesRoutes } from './namespaces/namespaces.ts';
import { membersRoutes } from './namespaces/members.ts';
import { projectsRoutes } from './namespaces/projects.ts';
import { projectActionsRoutes } from './namespaces/projects-actions.ts';
import { repositoryBrowsingRoutes } from './repository/browsing.ts';
import { repositoryCommitsRoutes } from './repository/commits.ts';
import { repositoryFilesRoutes } from './repository/files.ts';
import { branchesRoutes } from './repository/branches.ts';
import { protectedBranchesRoutes } from './repository/protected-branches.ts';
import { tagsRoutes } from './repository/tags.ts';
import { releasesRoutes } from './repository/releases.ts';
import { deployKeysRoutes } from './accounts/deploy-keys.ts';
import { usersRoutes } from './accounts/users.ts';
import { usersKeysRoutes } from './accounts/users-keys.ts';
import { keysRoutes } from './accounts/keys.ts';
import { usersGpgKeysRoutes } from './accounts/users-gpg-keys.ts';
import { ciVariablesRoutes } from './ci/variables.ts';
import { ciTriggersRoutes } from './ci/triggers.ts';
import { pipelineSchedulesRoutes } from './ci/pipeline-schedules.ts';
import { environmentsRoutes } from './ci/environments.ts';
import { resourceGroupsRoutes } from './ci/resource-groups.ts';
import { pipelinesRoutes } from './ci/pipelines.ts';
import { runnerProtocolRoutes } from './ci/runners-protocol.ts';
import { runnerJobUpdatesRoutes } from './ci/runner-job-updates.ts';
import { runnerArtifactsRoutes } from './ci/runner-artifacts.ts';
import { runnerJobsRoutes } from './ci/runner-jobs.ts';
import { runnersRoutes } from './ci/runners.ts';
import { userRunnersRoutes } from './ci/user-runners.ts';
import { projectRunnersRoutes } from './ci/project-runners.ts';
import { jobsRoutes } from './ci/jobs.ts';
import { commitStatusesRoutes } from './ci/commit-statuses.ts';
import { pipelineCreationRoutes } from './ci/pipelines-create.ts';
import { ciLintRoutes } from './ci/lint.ts';
import { labelsRoutes } from './planning/labels.ts';
import { milestonesRoutes } from './planning/milestones.ts';
import { issuesRoutes } from './planning/issues.ts';
import { notesRoutes } from './planning/notes.ts';
import { discussionsRoutes } from './planning/discussions.ts';
import { awardEmojiRoutes } from './planning/award-emoji.ts';
import { timeTrackingRoutes } from './planning/time-tracking.ts';
import { issueMoveRoutes } from './planning/issue-move.ts';
import { mergeRequestMergeRoutes } from './planning/merge-request-merge.ts';
import { labelPromoteRoutes } from './planning/label-promote.ts';
import { subscriptionsRoutes } from './planning/subscriptions.ts';
import { mergeRequestPipelinesRoutes } from './planning/merge-request-pipelines.ts';
import { todosRoutes } from './planning/todos.ts';
import { mergeRequestsRoutes } from './planning/merge-requests.ts';
import { mergeRequestDiffsRoutes } from './planning/merge-request-diffs.ts';
import { mergeRequestVersionsRoutes } from './planning/merge-request-versions.ts';
import { mergeRequestApprovalsRoutes } from './planning/merge-request-approvals.ts';
import { integrationsRoutes } from './integrations/integrations.ts';
import { projectHooksRoutes } from './hooks.ts';
import { groupHooksRoutes } from './group-hooks.ts';
import { systemHooksRoutes } from './system-hooks.ts';
import { uploadsRoutes } from './accounts/uploads.ts';
import { userStatusRoutes } from './accounts/user-status.ts';
import { repositoryMaintenanceRoutes } from './repository/maintenance.ts';
import { commitSignaturesRoutes } from './repository/commit-signatures.ts';
import { userEmailsRoutes } from './accounts/user-emails.ts';
import { eventsRoutes } from './accounts/events.ts';
import { genericPackagesRoutes } from './packages/generic-packages.ts';
import { packagesRoutes } from './packages/packages.ts';

/** Mounts every resource area under /api/v4. One plugin per area; each stays thin. */
export async function registerApi(api: FastifyInstance, services: CoordinatorServices, edge: EdgeConfig): Promise<void> {
  // Every area in the typed pattern: typebox route schemas, services with narrow dependencies.
  const typed = [namespacesRoutes, projectsRoutes, projectActionsRoutes, customAttributesRoutes, groupsRoutes, groupChangesRoutes, groupDescendantsRoutes, groupTransferRoutes, projectGroupsRoutes, projectStorageRoutes, membersRoutes, membershipsRoutes, usersRoutes, usersKeysRoutes, keysRoutes, usersGpgKeysRoutes, accessTokensRoutes, resourceAccessTokensRoutes, settingsRoutes, versionRoutes, jobQueueRoutes];
  // The repository area (code, refs, releases, deploy keys).
  const repository = [repositoryCommitsRoutes, repositoryFilesRoutes, repositoryBrowsingRoutes, branchesRoutes, protectedBranchesRoutes, protectedTagsRoutes, tagsRoutes, releasesRoutes, releaseLinksRoutes, deployKeysRoutes, packagesRoutes, genericPackagesRoutes];
  // The CI area: pipelines, jobs, statuses; settings (variables, triggers, pipeline schedules, environments).
  const ci = [
    pipelineCreationRoutes,
    ciLintRoutes,
    pipelinesRoutes,
    jobsRoutes,
    commitStatusesRoutes,
    ciVariablesRoutes,
    ciTriggersRoutes,
    pipelineSchedulesRoutes,
    environmentsRoutes,
    resourceGroupsRoutes,
  ];
  // Runners: registration (runner side), the runners API, project runners and registration tokens.
  const runners = [runnerProtocolRoutes, runnerJobsRoutes, runnerJobUpdatesRoutes, runnerArtifactsRoutes, runnersRoutes, projectRunnersRoutes, userRunnersRoutes];
  // Planning: labels, milestones, issues, their notes, award emoji and time tracking, moves, label promotion, subscriptions and todos.
  const planning = [labelsRoutes, milestonesRoutes, issuesRoutes, notesRoutes, discussionsRoutes, awardEmojiRoutes, timeTrackingRoutes, issueMoveRoutes, labelPromoteRoutes, subscriptionsRoutes, todosRoutes];
  planning.push(mergeRequestsRoutes, mergeRequestDiffsRoutes, mergeRequestVersionsRoutes, mergeRequestApprovalsRoutes, mergeRequestMergeRoutes, mergeRequestPipelinesRoutes);
  // Integrations (GitLab's services).
  const integrations = [integrationsRoutes, projectHooksRoutes, groupHooksRoutes, systemHooksRoutes];
  // Uploads and the accounts additions of issue 29.
  integrations.push(uploadsRoutes, userStatusRoutes);
  // Housekeeping, snapshots and commit signatures (issue 29).
  repository.push(repositoryMaintenanceRoutes, commitSignaturesRoutes);
  integrations.push(userEmailsRoutes, eventsRoutes);
  for (const plugin of [...typed, ...repository, ...ci, ...runners, ...planning, ...integrations]) await api.register(plugin(services, edge));
}
