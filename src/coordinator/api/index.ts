import type { FastifyInstance } from 'fastify';
import type { CoordinatorServices, EdgeConfig } from '../wiring.ts';
import { versionRoutes } from './version.ts';
import { settingsRoutes } from './settings.ts';
import { customAttributesRoutes } from './custom-attributes.ts';
import { accessTokensRoutes } from './access-tokens.ts';
import { groupsRoutes } from './groups.ts';
import { groupChangesRoutes } from './groups-changes.ts';
import { releaseLinksRoutes } from './release-links.ts';
import { protectedTagsRoutes } from './protected-tags.ts';
import { membershipsRoutes } from './memberships.ts';
import { namespacesRoutes } from './namespaces.ts';
import { membersRoutes } from './members.ts';
import { projectsRoutes } from './projects.ts';
import { projectActionsRoutes } from './projects-actions.ts';
import { repositoryBrowsingRoutes } from './repository-browsing.ts';
import { repositoryCommitsRoutes } from './repository-commits.ts';
import { repositoryFilesRoutes } from './repository-files.ts';
import { branchesRoutes } from './branches.ts';
import { protectedBranchesRoutes } from './protected-branches.ts';
import { tagsRoutes } from './tags.ts';
import { releasesRoutes } from './releases.ts';
import { deployKeysRoutes } from './deploy-keys.ts';
import { usersRoutes } from './users.ts';
import { usersKeysRoutes } from './users-keys.ts';
import { usersGpgKeysRoutes } from './users-gpg-keys.ts';
import { ciVariablesRoutes } from './ci-variables.ts';
import { ciTriggersRoutes } from './ci-triggers.ts';
import { pipelineSchedulesRoutes } from './pipeline-schedules.ts';
import { environmentsRoutes } from './environments.ts';
import { pipelinesRoutes } from './pipelines.ts';
import { runnerProtocolRoutes } from './runners-protocol.ts';
import { runnerJobUpdatesRoutes } from './runner-job-updates.ts';
import { runnerArtifactsRoutes } from './runner-artifacts.ts';
import { runnerJobsRoutes } from './runner-jobs.ts';
import { runnersRoutes } from './runners.ts';
import { projectRunnersRoutes } from './project-runners.ts';
import { jobsRoutes } from './jobs.ts';
import { commitStatusesRoutes } from './commit-statuses.ts';
import { pipelineCreationRoutes } from './pipelines-create.ts';
import { ciLintRoutes } from './ci-lint.ts';

/** Mounts every resource area under /api/v4. One plugin per area; each stays thin. */
export async function registerApi(api: FastifyInstance, services: CoordinatorServices, edge: EdgeConfig): Promise<void> {
  // Every area in the typed pattern: typebox route schemas, services with narrow dependencies.
  const typed = [namespacesRoutes, projectsRoutes, projectActionsRoutes, customAttributesRoutes, groupsRoutes, groupChangesRoutes, membersRoutes, membershipsRoutes, usersRoutes, usersKeysRoutes, usersGpgKeysRoutes, accessTokensRoutes, settingsRoutes, versionRoutes];
  // The repository area (code, refs, releases, deploy keys).
  const repository = [repositoryCommitsRoutes, repositoryFilesRoutes, repositoryBrowsingRoutes, branchesRoutes, protectedBranchesRoutes, protectedTagsRoutes, tagsRoutes, releasesRoutes, releaseLinksRoutes, deployKeysRoutes];
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
  ];
  // Runners: registration (runner side), the runners API, project runners and registration tokens.
  const runners = [runnerProtocolRoutes, runnerJobsRoutes, runnerJobUpdatesRoutes, runnerArtifactsRoutes, runnersRoutes, projectRunnersRoutes];
  for (const plugin of [...typed, ...repository, ...ci, ...runners]) await api.register(plugin(services, edge));
}
