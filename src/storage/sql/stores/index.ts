import type { Db } from '../database.ts';
import { SecretBox } from '../../secret-box.ts';
import { TableWrites } from '../table-writes.ts';
import { SqlAccessFactsStore } from './access-facts.ts';
import { SqlSchedulesStore } from './ci-schedules.ts';
import { createCiStores, SqlCiTransactions } from './ci-transactions.ts';
import { SqlTriggersStore } from './ci-triggers.ts';
import { SqlGroupVariablesStore, SqlInstanceVariablesStore, SqlProjectVariablesStore } from './ci-variables.ts';
import { SqlCiSigningKeyStore } from './ci-signing-key.ts';
import { SqlCommitCommentsStore } from './commit-comments.ts';
import { SqlCustomAttributesStore } from './custom-attributes.ts';
import { SqlUserStatusStore } from './user-status.ts';
import { SqlUserActivityStore, SqlUserEmailsStore } from './user-emails.ts';
import { SqlEventsStore } from './events.ts';
import { SqlDeployKeysStore } from './deploy-keys.ts';
import { SqlGpgKeysStore, SqlSshKeysStore } from './keys.ts';
import { SqlIssuesStore } from './issues.ts';
import { SqlMergeRequestCommitsStore } from './merge-request-commits.ts';
import { SqlMergeRequestDiffVersionsStore } from './merge-request-diff-versions.ts';
import { SqlMergeRequestIssueLinksStore } from './merge-request-issue-links.ts';
import { SqlMergeRequestsStore } from './merge-requests.ts';
import { SqlMergeRequestPipelinesStore } from './merge-request-pipelines.ts';
import { SqlMergeRequestApprovalsStore } from './merge-requests-approvals.ts';
import { SqlLabelsStore } from './labels.ts';
import { SqlMilestonesStore } from './milestones.ts';
import { SqlNotesStore } from './notes.ts';
import { SqlAwardEmojiStore } from './award-emoji.ts';
import { SqlTimelogsStore } from './timelogs.ts';
import { SqlCommitReferencesStore } from './commit-references.ts';
import { SqlIssueMovesStore } from './issue-moves.ts';
import { SqlLabelPromotionsStore } from './label-promotions.ts';
import { SqlSubscriptionsStore } from './subscriptions.ts';
import { SqlTodosStore } from './todos.ts';
import { SqlIntegrationsStore } from './integrations.ts';
import { SqlWebSessionsStore } from './web-sessions.ts';
import { SqlHookDeliveriesStore } from './hooks-deliveries.ts';
import { SqlHooksStore } from './hooks.ts';
import { SqlInstallationStore, SqlInstancesStore, SqlThrottleCountersStore } from './instances.ts';
import { SqlGroupGroupLinksStore } from './group-group-links.ts';
import { SqlGroupQueriesStore } from './group-queries.ts';
import { SqlMemberQueriesStore } from './member-queries.ts';
import { SqlMembersStore } from './members.ts';
import { SqlNamespacesStore } from './namespaces.ts';
import { SqlProjectGroupLinksStore } from './project-group-links.ts';
import { SqlProjectQueriesStore } from './project-queries.ts';
import { SqlProjectsStore } from './projects.ts';
import { SqlProtectedBranchesStore } from './protected-branches.ts';
import { SqlProtectedTagsStore } from './protected-tags.ts';
import { SqlReleaseLinksStore } from './release-links.ts';
import { SqlPackagesStore } from './packages.ts';
import { SqlReleasesStore } from './releases.ts';
import { SqlRunnerManagersStore } from './runner-managers.ts';
import { SqlRunnersStore } from './runners.ts';
import { SqlRegistrationTokensStore } from './runner-registration-tokens.ts';
import { SqlSettingsStore } from './settings.ts';
import { SqlTokensStore } from './tokens.ts';
import { SqlResourceBotsStore } from './resource-bots.ts';
import { SqlTraceStore } from './trace-chunks.ts';
import { SqlUserLifecycleStore } from './user-lifecycle.ts';
import { SqlUsersStore } from './users.ts';

let processSecrets: SecretBox | undefined;

/**
 * Builds every SQL store over one database handle; the stores writing the tables read caches
 * depend on report their writes to `writes` (OpenedDatabase.writes). `secrets` seals and opens
 * the secret columns (storage/sql/secrets-at-rest.ts); without it, a random key shared by the
 * process, which nothing reads after it ends (tests, benches).
 */
export function createSqlStores(db: Db, writes: TableWrites = new TableWrites(), secrets: SecretBox = (processSecrets ??= SecretBox.ephemeral())) {
  return {
    users: new SqlUsersStore(db, writes),
    tokens: new SqlTokensStore(db, writes),
    resourceBots: new SqlResourceBotsStore(db),
    namespaces: new SqlNamespacesStore(db, writes),
    projects: new SqlProjectsStore(db, writes),
    projectQueries: new SqlProjectQueriesStore(db, writes),
    projectGroupLinks: new SqlProjectGroupLinksStore(db, writes),
    groupGroupLinks: new SqlGroupGroupLinksStore(db, writes),
    members: new SqlMembersStore(db, writes),
    accessFacts: new SqlAccessFactsStore(db),
    groupQueries: new SqlGroupQueriesStore(db),
    memberQueries: new SqlMemberQueriesStore(db),
    customAttributes: new SqlCustomAttributesStore(db, writes),
    userStatuses: new SqlUserStatusStore(db),
    userEmails: new SqlUserEmailsStore(db),
    userActivity: new SqlUserActivityStore(db),
    activityEvents: new SqlEventsStore(db),
    settings: new SqlSettingsStore(db),
    commitComments: new SqlCommitCommentsStore(db),
    sshKeys: new SqlSshKeysStore(db),
    gpgKeys: new SqlGpgKeysStore(db),
    protectedBranches: new SqlProtectedBranchesStore(db),
    protectedTags: new SqlProtectedTagsStore(db),
    releases: new SqlReleasesStore(db),
    releaseLinks: new SqlReleaseLinksStore(db),
    packages: new SqlPackagesStore(db),
    deployKeys: new SqlDeployKeysStore(db),
    userLifecycle: new SqlUserLifecycleStore(db, writes),
    ...createCiStores(db, secrets),
    ciTransactions: new SqlCiTransactions(db, secrets),
    runners: new SqlRunnersStore(db),
    runnerManagers: new SqlRunnerManagersStore(db),
    registrationTokens: new SqlRegistrationTokensStore(db),
    projectVariables: new SqlProjectVariablesStore(db, secrets),
    groupVariables: new SqlGroupVariablesStore(db, secrets),
    instanceVariables: new SqlInstanceVariablesStore(db, secrets),
    ciSigningKey: new SqlCiSigningKeyStore(db, secrets),
    triggers: new SqlTriggersStore(db),
    schedules: new SqlSchedulesStore(db, secrets),
    /** Traces in the database (several coordinators); FileTraceStore is the one-coordinator choice. */
    traceChunks: new SqlTraceStore(db),
    instances: new SqlInstancesStore(db),
    installation: new SqlInstallationStore(db),
    throttleCounters: new SqlThrottleCountersStore(db),
    labels: new SqlLabelsStore(db),
    milestones: new SqlMilestonesStore(db),
    issues: new SqlIssuesStore(db),
    notes: new SqlNotesStore(db),
    awardEmoji: new SqlAwardEmojiStore(db),
    timelogs: new SqlTimelogsStore(db),
    commitReferences: new SqlCommitReferencesStore(db),
    issueMoves: new SqlIssueMovesStore(db),
    labelPromotions: new SqlLabelPromotionsStore(db),
    subscriptions: new SqlSubscriptionsStore(db),
    todos: new SqlTodosStore(db),
    integrations: new SqlIntegrationsStore(db, secrets),
    hooks: new SqlHooksStore(db, secrets),
    hookDeliveries: new SqlHookDeliveriesStore(db),
    mergeRequests: new SqlMergeRequestsStore(db),
    mergeRequestCommits: new SqlMergeRequestCommitsStore(db),
    mergeRequestDiffVersions: new SqlMergeRequestDiffVersionsStore(db),
    mergeRequestIssueLinks: new SqlMergeRequestIssueLinksStore(db),
    mergeRequestPipelines: new SqlMergeRequestPipelinesStore(db),
    mergeRequestApprovals: new SqlMergeRequestApprovalsStore(db),
    webSessions: new SqlWebSessionsStore(db),
  };
}

export type SqlStores = ReturnType<typeof createSqlStores>;
