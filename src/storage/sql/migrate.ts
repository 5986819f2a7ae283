import { Migrator, sql, type Migration, type MigrationProvider } from '#deps/kysely';
import type { Db, DialectName } from './database.ts';
import type { DialectMigration } from './migrations/helpers.ts';
import { accountsAndProjects } from './migrations/001-accounts-and-projects.ts';
import { usersAndKeys } from './migrations/002-users-and-keys.ts';
import { commitComments } from './migrations/004-commit-comments.ts';
import { repositoryProtection } from './migrations/005-repository-protection.ts';
import { releaseDetails } from './migrations/006-release-details.ts';
import { tokenDetails } from './migrations/007-token-details.ts';
import { userUpdatedAt } from './migrations/008-user-updated-at.ts';
import { protectedTags } from './migrations/009-protected-tags.ts';
import { protectedBranchForcePush } from './migrations/010-force-push.ts';
import { releaseLinks } from './migrations/011-release-links.ts';
import { groupShares } from './migrations/012-group-shares.ts';
import { ciRunners } from './migrations/013-ci-runners.ts';
import { ciPipelines } from './migrations/014-ci-pipelines.ts';
import { ciSettings } from './migrations/015-ci-settings.ts';
import { environments } from './migrations/016-environments.ts';
import { tasks } from './migrations/017-tasks.ts';
import { groupRunnersTokens } from './migrations/018-group-runners-tokens.ts';
import { projectForksIndex } from './migrations/019-project-forks-index.ts';
import { artifactMemberLocations } from './migrations/020-artifact-member-locations.ts';
import { runnerManagers } from './migrations/021-runner-managers.ts';
import { coordinatorInstances } from './migrations/022-coordinator-instances.ts';
import { dotenvVariables } from './migrations/023-dotenv-variables.ts';
import { planning } from './migrations/024-planning.ts';
import { planningActivity } from './migrations/025-planning-activity.ts';
import { issueMovedTo } from './migrations/026-issue-moved-to.ts';
import { integrations } from './migrations/027-integrations.ts';
import { taskCounters } from './migrations/028-task-counters.ts';
import { issuesStateIndex } from './migrations/029-issues-state-index.ts';
import { mergeRequests } from './migrations/030-merge-requests.ts';
import { projectMergeSettings } from './migrations/031-project-merge-settings.ts';
import { webHooks } from './migrations/032-web-hooks.ts';
import { discussions } from './migrations/033-discussions.ts';
import { webSessions } from './migrations/034-web-sessions.ts';
import { userStatuses } from './migrations/035-user-statuses.ts';
import { keySha256Fingerprints } from './migrations/036-key-sha256-fingerprints.ts';
import { groupAndSystemHooks } from './migrations/037-group-and-system-hooks.ts';
import { userEmailsAndEvents } from './migrations/038-user-emails-and-events.ts';
import { groupHookEvents } from './migrations/039-group-hook-events.ts';
import { activityDaysSubkeysEmailAddresses } from './migrations/040-activity-days-subkeys-email-addresses.ts';
import { deploymentMergeRequests } from './migrations/042-deployment-merge-requests.ts';
import { secretKeyCheck } from './migrations/044-secret-key-check.ts';
import { mergeRequestIssueLinks } from './migrations/045-merge-request-issue-links.ts';
import { ciInstanceVariables } from './migrations/046-ci-instance-variables.ts';
import { pipelineMetadata } from './migrations/047-pipeline-metadata.ts';
import { environmentSlugs } from './migrations/048-environment-slugs.ts';
import { ciSigningKey } from './migrations/049-ci-signing-key.ts';
import { jobDownstreamErrors } from './migrations/050-job-downstream-errors.ts';
import { jobResourceGroup } from './migrations/051-job-resource-group.ts';
import { jobResourceGroupAssignment } from './migrations/052-job-resource-group-assignment.ts';
import { environmentTierAutoStop } from './migrations/053-environment-tier-auto-stop.ts';
import { jobWaitingForResource } from './migrations/054-job-waiting-for-resource.ts';
import { projectForwardDeployment } from './migrations/055-project-forward-deployment.ts';
import { environmentMergeRequest } from './migrations/056-environment-merge-request.ts';
import { resourceGroups } from './migrations/057-resource-groups.ts';
import { jobEnvironmentVariables } from './migrations/058-job-environment-variables.ts';
import { jobEnvironmentVariablesIndex } from './migrations/059-job-environment-variables-index.ts';
import { ciVariableDescriptionRawHidden } from './migrations/060-ci-variable-description-raw-hidden.ts';
import { defaultBranchRules } from './migrations/061-default-branch-rules.ts';
import { milestoneReleases } from './migrations/062-milestone-releases.ts';
import { mergeRequestDiffVersions } from './migrations/063-merge-request-diff-versions.ts';
import { packages } from './migrations/064-packages.ts';
import { resourceBots } from './migrations/065-resource-bots.ts';

/** Ordered migrations; names never change once released. */
const MIGRATIONS: ReadonlyArray<[string, DialectMigration]> = [
  ['001-accounts-and-projects', accountsAndProjects],
  ['002-users-and-keys', usersAndKeys],
  ['004-commit-comments', commitComments],
  ['005-repository-protection', repositoryProtection],
  ['006-release-details', releaseDetails],
  ['007-token-details', tokenDetails],
  ['008-user-updated-at', userUpdatedAt],
  ['009-protected-tags', protectedTags],
  ['010-force-push', protectedBranchForcePush],
  ['011-release-links', releaseLinks],
  ['012-group-shares', groupShares],
  ['013-ci-runners', ciRunners],
  ['014-ci-pipelines', ciPipelines],
  ['015-ci-settings', ciSettings],
  ['016-environments', environments],
  ['017-tasks', tasks],
  ['018-group-runners-tokens', groupRunnersTokens],
  ['019-project-forks-index', projectForksIndex],
  ['020-artifact-member-locations', artifactMemberLocations],
  ['021-runner-managers', runnerManagers],
  ['022-coordinator-instances', coordinatorInstances],
  ['023-dotenv-variables', dotenvVariables],
  ['024-planning', planning],
  ['025-planning-activity', planningActivity],
  ['026-issue-moved-to', issueMovedTo],
  ['027-integrations', integrations],
  ['028-task-counters', taskCounters],
  ['029-issues-state-index', issuesStateIndex],
  ['030-merge-requests', mergeRequests],
  ['031-project-merge-settings', projectMergeSettings],
  ['032-web-hooks', webHooks],
  ['033-discussions', discussions],
  ['034-web-sessions', webSessions],
  ['035-user-statuses', userStatuses],
  ['036-key-sha256-fingerprints', keySha256Fingerprints],
  ['037-group-and-system-hooks', groupAndSystemHooks],
  ['038-user-emails-and-events', userEmailsAndEvents],
  ['039-group-hook-events', groupHookEvents],
  ['040-activity-days-subkeys-email-addresses', activityDaysSubkeysEmailAddresses],
  ['042-deployment-merge-requests', deploymentMergeRequests],
  ['044-secret-key-check', secretKeyCheck],
  ['045-merge-request-issue-links', mergeRequestIssueLinks],
  ['046-ci-instance-variables', ciInstanceVariables],
  ['047-pipeline-metadata', pipelineMetadata],
  ['048-environment-slugs', environmentSlugs],
  ['049-ci-signing-key', ciSigningKey],
  ['050-job-downstream-errors', jobDownstreamErrors],
  ['051-job-resource-group', jobResourceGroup],
  ['052-job-resource-group-assignment', jobResourceGroupAssignment],
  ['053-environment-tier-auto-stop', environmentTierAutoStop],
  ['054-job-waiting-for-resource', jobWaitingForResource],
  ['055-project-forward-deployment', projectForwardDeployment],
  ['056-environment-merge-request', environmentMergeRequest],
  ['057-resource-groups', resourceGroups],
  ['058-job-environment-variables', jobEnvironmentVariables],
  ['059-job-environment-variables-index', jobEnvironmentVariablesIndex],
  ['060-ci-variable-description-raw-hidden', ciVariableDescriptionRawHidden],
  ['061-default-branch-rules', defaultBranchRules],
  ['062-milestone-releases', milestoneReleases],
  ['063-merge-request-diff-versions', mergeRequestDiffVersions],
  ['064-packages', packages],
  ['065-resource-bots', resourceBots],
];

/** The names of every migration, in order: a schema's identity (the tests' PostgreSQL template is keyed on it). */
export function migrationNames(): string[] {
  return MIGRATIONS.map(([name]) => name);
}

class InlineMigrationProvider implements MigrationProvider {
  constructor(private readonly dialect: DialectName) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const migrations: Record<string, Migration> = {};
    for (const [name, migration] of MIGRATIONS) {
      migrations[name] = { up: (db) => migration.up(db, this.dialect) };
    }
    return migrations;
  }
}

/** Applies every pending migration; throws the first failure. */
export async function migrateToLatest(db: Db, dialect: DialectName): Promise<void> {
  // Most starts find nothing to do (a restart, `runner exec`'s schema image): one query says
  // so, where the migrator first reads the columns of every table (5–14 ms of CPU).
  if (await everyMigrationRecorded(db)) return;
  // Areas landed out of number order (004 before 002 and 003): a database migrated in
  // between must still take the lower numbers it lacks.
  const migrator = new Migrator({ db, provider: new InlineMigrationProvider(dialect), allowUnorderedMigrations: true });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

/** Every migration of this version recorded as applied, and no other (the migrator would find nothing to do). */
async function everyMigrationRecorded(db: Db): Promise<boolean> {
  let recorded: string[];
  try {
    recorded = (await sql<{ name: string }>`select name from kysely_migration`.execute(db)).rows.map((row) => row.name);
  } catch {
    return false; // no migrations table yet (an empty database): the migrator makes it
  }
  const known = new Set(migrationNames());
  return recorded.length === known.size && recorded.every((name) => known.has(name));
}

/** Applies the pending migrations up to `name` included (tests of a migration's data). */
export async function migrateUpTo(db: Db, dialect: DialectName, name: string): Promise<void> {
  const migrator = new Migrator({ db, provider: new InlineMigrationProvider(dialect), allowUnorderedMigrations: true });
  const { error } = await migrator.migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error(String(error));
}
