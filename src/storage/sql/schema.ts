import type { Generated } from '#deps/kysely';
import type { CiArtifactEntriesTable, CiJobArtifactsTable, CiJobsTable, CiJobVariablesTable, CiPipelinesTable, CiPipelineVariablesTable, CiResourceGroupsTable, CiStagesTable, CiTraceChunksTable, InternalIdsTable } from './schema-ci.ts';
import type {
  CiGroupVariablesTable, CiInstanceVariablesTable, CiPipelineSchedulesTable, CiPipelineScheduleVariablesTable, CiRunnerManagersTable, CiRunnerNamespacesTable, CiRunnerProjectsTable,
  CiRunnersTable, CiTriggersTable, CiVariablesTable, DeploymentMergeRequestsTable, DeploymentsTable, EnvironmentsTable, NamespaceRunnersTokensTable, TaskCountersTable, TasksTable,
} from './schema-ci-settings.ts';
import type { CommitCommentsTable } from './schema-commit-comments.ts';
import type { EmailAddressesTable, EventsTable, GpgKeySubkeysTable, UserActivityDaysTable, UserEmailsTable, UserStatusesTable } from './schema-accounts.ts';
import type { GroupInternalIdsTable, IssueAssigneesTable, IssueLabelsTable, IssuesTable, LabelsTable, MilestonesTable } from './schema-planning.ts';
import type { MergeRequestApprovalsTable, MergeRequestDiffVersionsTable, MergeRequestIssueLinksTable, MergeRequestLabelsTable, MergeRequestsTable, MergeRequestUsersTable } from './schema-merge-requests.ts';
import type { AwardEmojiTable, NotesTable, SubscriptionsTable, TimelogsTable, TodosTable } from './schema-planning-activity.ts';
import type { IntegrationsTable } from './schema-integrations.ts';
import type { WebSessionsTable, WebSignInFailuresTable } from './schema-web-sessions.ts';
import type { WebHookDeliveriesTable, WebHookLogsTable, WebHooksTable } from './schema-hooks.ts';
import type { PackageFilesTable, PackagesTable } from './schema-packages.ts';
import type { DeployKeysProjectsTable, DeployKeysTable, MilestoneReleasesTable, ProtectedBranchesTable, ProtectedTagsTable, ReleaseLinksTable, ReleasesTable } from './schema-repository-protection.ts';

/**
 * Table types shared by SQLite and PostgreSQL. Portable choices: booleans are integers 0/1,
 * timestamps are ISO 8601 strings (UTC, milliseconds; they sort as text), lists and maps are
 * JSON text.
 */
export interface UsersTable {
  id: Generated<number>;
  /** Set on every change; not part of UserRecord (only listings order by it). */
  updated_at: string | null;
  username: string;
  name: string;
  email: string;
  password_digest: string | null;
  state: string;
  is_admin: number;
  is_ghost: number;
  bio: string;
  location: string;
  messenger_id: string;
  network_profile: string;
  microblog_account: string;
  website_url: string;
  organization: string;
  projects_limit: number;
  can_create_group: number;
  external: number;
  extern_uid: string | null;
  provider: string | null;
  avatar_url: string | null;
  theme_id: number;
  color_scheme_id: number;
  two_factor_enabled: number;
  password_expires_at: string | null;
  created_at: string;
  confirmed_at: string | null;
  last_sign_in_at: string | null;
  current_sign_in_at: string | null;
  last_activity_on: string | null;
}

export interface PersonalTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  token_digest: string;
  created_at: string;
  /** JSON array of scope names. */
  scopes: string;
  expires_at: string | null;
  revoked: number;
  impersonation: number;
}

/** The bot user of a project or group access token and the project or group it belongs to. */
export interface ResourceBotsTable {
  user_id: number;
  /** `project` or `namespace`, as members.source_type. */
  source_type: string;
  source_id: number;
}

export interface NamespacesTable {
  id: Generated<number>;
  kind: string;
  name: string;
  path: string;
  full_path: string;
  full_name: string;
  parent_id: number | null;
  owner_id: number | null;
  description: string;
  visibility: string;
  lfs_enabled: number;
  request_access_enabled: number;
  avatar_url: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProjectsTable {
  id: Generated<number>;
  namespace_id: number;
  creator_id: number;
  name: string;
  path: string;
  description: string;
  default_branch: string | null;
  visibility: string;
  archived: number;
  issues_enabled: number;
  merge_requests_enabled: number;
  wiki_enabled: number;
  jobs_enabled: number;
  snippets_enabled: number;
  container_registry_enabled: number;
  resolve_outdated_diff_discussions: number;
  shared_runners_enabled: number;
  public_jobs: number;
  request_access_enabled: number;
  only_allow_merge_if_pipeline_succeeds: number;
  only_allow_merge_if_all_discussions_are_resolved: number;
  printing_merge_requests_link_enabled: number;
  /** Migration 031. */
  merge_method: Generated<string>;
  squash_option: Generated<string>;
  remove_source_branch_after_merge: Generated<number>;
  /** Migration 055. */
  ci_forward_deployment_enabled: Generated<number>;
  ci_forward_deployment_rollback_allowed: Generated<number>;
  lfs_enabled: number;
  tag_list: string;
  forked_from_id: number | null;
  runners_token: string;
  import_status: string;
  import_error: string | null;
  avatar_url: string | null;
  ci_config_path: string | null;
  pending_delete: number;
  /** The coordinator instance whose creation or deletion set pending_delete (null: none, or an older version). */
  pending_instance_id: string | null;
  created_at: string;
  updated_at: string;
  last_activity_at: string;
}

export interface MembersTable {
  id: Generated<number>;
  source_type: string;
  source_id: number;
  user_id: number;
  access_level: number;
  notification_level: number;
  expires_at: string | null;
  created_by_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface GroupGroupLinksTable {
  id: Generated<number>;
  shared_group_id: number;
  shared_with_group_id: number;
  group_access: number;
  expires_at: string | null;
  created_at: string;
}

export interface ProjectGroupLinksTable {
  id: Generated<number>;
  project_id: number;
  group_id: number;
  group_access: number;
  expires_at: string | null;
  created_at: string;
}

export interface StarsTable {
  user_id: number;
  project_id: number;
  created_at: string;
}

export interface SshKeysTable {
  id: Generated<number>;
  user_id: number;
  title: string;
  key: string;
  fingerprint: string;
  /** Migration 036: unpadded base64, without `SHA256:`; null only for rows it could not read. */
  fingerprint_sha256: string | null;
  key_type: string;
  key_bits: number;
  created_at: string;
  expires_at: string | null;
}

export interface GpgKeysTable {
  id: Generated<number>;
  user_id: number;
  key: string;
  fingerprint: string;
  primary_keyid: string;
  created_at: string;
}

export interface CustomAttributesTable {
  id: Generated<number>;
  subject_type: string;
  subject_id: number;
  key: string;
  value: string;
  created_at: string;
  updated_at: string;
}

export interface ApplicationSettingsTable {
  id: number;
  settings: string;
  created_at: string;
  updated_at: string;
}

export interface GantryInstallationTable {
  id: number;
  installation_id: string;
  created_at: string;
}

/** Migration 044: the known text sealed with the secret key (one row, id 1). */
export interface CiSigningKeyTable {
  id: number;
  private_key: string;
  created_at: string;
}

export interface GantrySecretKeyCheckTable {
  id: number;
  sealed: string;
  updated_at: string;
}

export interface CoordinatorInstancesTable {
  id: string;
  hostname: string;
  pid: number;
  version: string;
  started_at: string;
  heartbeat_at_ms: number;
}

export interface ThrottleCountersTable {
  key: string;
  hits: number;
  window_ends_at_ms: number;
}

export interface DatabaseSchema {
  users: UsersTable;
  personal_tokens: PersonalTokensTable;
  resource_bots: ResourceBotsTable;
  namespaces: NamespacesTable;
  projects: ProjectsTable;
  members: MembersTable;
  project_group_links: ProjectGroupLinksTable;
  group_group_links: GroupGroupLinksTable;
  stars: StarsTable;
  ssh_keys: SshKeysTable;
  gpg_keys: GpgKeysTable;
  custom_attributes: CustomAttributesTable;
  user_statuses: UserStatusesTable;
  user_emails: UserEmailsTable;
  events: EventsTable;
  user_activity_days: UserActivityDaysTable;
  gpg_key_subkeys: GpgKeySubkeysTable;
  email_addresses: EmailAddressesTable;
  application_settings: ApplicationSettingsTable;
  commit_comments: CommitCommentsTable;
  protected_branches: ProtectedBranchesTable;
  protected_tags: ProtectedTagsTable;
  release_links: ReleaseLinksTable;
  releases: ReleasesTable;
  milestone_releases: MilestoneReleasesTable;
  deploy_keys: DeployKeysTable;
  deploy_keys_projects: DeployKeysProjectsTable;
  ci_runners: CiRunnersTable;
  ci_runner_projects: CiRunnerProjectsTable;
  ci_runner_namespaces: CiRunnerNamespacesTable;
  ci_runner_managers: CiRunnerManagersTable;
  namespace_runners_tokens: NamespaceRunnersTokensTable;
  internal_ids: InternalIdsTable;
  ci_pipelines: CiPipelinesTable;
  ci_pipeline_variables: CiPipelineVariablesTable;
  ci_stages: CiStagesTable;
  ci_jobs: CiJobsTable;
  ci_resource_groups: CiResourceGroupsTable;
  ci_job_artifacts: CiJobArtifactsTable;
  ci_artifact_entries: CiArtifactEntriesTable;
  ci_job_variables: CiJobVariablesTable;
  ci_trace_chunks: CiTraceChunksTable;
  ci_variables: CiVariablesTable;
  ci_group_variables: CiGroupVariablesTable;
  ci_instance_variables: CiInstanceVariablesTable;
  ci_triggers: CiTriggersTable;
  ci_pipeline_schedules: CiPipelineSchedulesTable;
  ci_pipeline_schedule_variables: CiPipelineScheduleVariablesTable;
  environments: EnvironmentsTable;
  deployments: DeploymentsTable;
  deployment_merge_requests: DeploymentMergeRequestsTable;
  tasks: TasksTable;
  task_counters: TaskCountersTable;
  gantry_installation: GantryInstallationTable;
  gantry_secret_key_check: GantrySecretKeyCheckTable;
  ci_signing_key: CiSigningKeyTable;
  coordinator_instances: CoordinatorInstancesTable;
  throttle_counters: ThrottleCountersTable;
  group_internal_ids: GroupInternalIdsTable;
  labels: LabelsTable;
  milestones: MilestonesTable;
  issues: IssuesTable;
  issue_labels: IssueLabelsTable;
  notes: NotesTable;
  award_emoji: AwardEmojiTable;
  timelogs: TimelogsTable;
  subscriptions: SubscriptionsTable;
  todos: TodosTable;
  issue_assignees: IssueAssigneesTable;
  integrations: IntegrationsTable;
  merge_requests: MergeRequestsTable;
  merge_request_labels: MergeRequestLabelsTable;
  merge_request_assignees: MergeRequestUsersTable;
  merge_request_reviewers: MergeRequestUsersTable;
  merge_request_approvals: MergeRequestApprovalsTable;
  merge_request_issue_links: MergeRequestIssueLinksTable;
  merge_request_diff_versions: MergeRequestDiffVersionsTable;
  web_sessions: WebSessionsTable;
  web_sign_in_failures: WebSignInFailuresTable;
  web_hooks: WebHooksTable;
  web_hook_deliveries: WebHookDeliveriesTable;
  web_hook_logs: WebHookLogsTable;
  packages: PackagesTable;
  package_files: PackageFilesTable;
}
