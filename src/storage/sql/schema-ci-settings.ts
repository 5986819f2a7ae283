import type { Generated } from '#deps/kysely';

/** Tables of migrations 013 (runners), 015 (CI settings), 016 (environments), 017 (tasks); part of DatabaseSchema. */
export interface CiRunnersTable {
  id: Generated<number>;
  runner_type: string;
  token_digest: string;
  token_prefix: string;
  description: string;
  active: number;
  locked: number;
  run_untagged: number;
  /** JSON array, sorted. */
  tag_list: string;
  access_level: string;
  maximum_timeout: number | null;
  name: string | null;
  version: string | null;
  revision: string | null;
  platform: string | null;
  architecture: string | null;
  executor: string | null;
  ip_address: string | null;
  contacted_at: string | null;
  created_at: string;
  updated_at: string;
  maintenance_note: Generated<string>;
  token_expires_at: string | null;
  registration_type: Generated<string>;
}

/** Migration 020: one row per (runner, system_id). */
export interface CiRunnerManagersTable {
  id: Generated<number>;
  runner_id: number;
  system_id: string;
  name: string | null;
  version: string | null;
  revision: string | null;
  platform: string | null;
  architecture: string | null;
  executor: string | null;
  ip_address: string | null;
  /** JSON object of the features the host announced. */
  features: Generated<string>;
  created_at: string;
  contacted_at: string | null;
}

export interface CiRunnerProjectsTable {
  id: Generated<number>;
  runner_id: number;
  project_id: number;
  created_at: string;
}

export interface CiRunnerNamespacesTable {
  id: Generated<number>;
  runner_id: number;
  namespace_id: number;
}

/** A group's runner registration token (one row per group that was given one). */
export interface NamespaceRunnersTokensTable {
  namespace_id: number;
  runners_token: string;
  created_at: string;
}

interface VariableColumns {
  id: Generated<number>;
  key: string;
  value: string;
  variable_type: string;
  protected: number;
  masked: number;
  /** Migration 060. */
  description: string | null;
  created_at: string;
  updated_at: string;
}

/** Migration 060: project and group variables may be raw, and created hidden. */
interface HidableVariableColumns extends VariableColumns {
  raw: Generated<number>;
  hidden: Generated<number>;
}

export interface CiVariablesTable extends HidableVariableColumns {
  project_id: number;
  environment_scope: string;
}

export interface CiGroupVariablesTable extends HidableVariableColumns {
  group_id: number;
}

/** Migration 046: the instance's variables, unique by key. */
export interface CiInstanceVariablesTable extends VariableColumns {
  raw: number;
}

export interface CiTriggersTable {
  id: Generated<number>;
  project_id: number;
  token: string;
  description: string;
  owner_id: number | null;
  last_used: string | null;
  created_at: string;
  updated_at: string;
}

export interface CiPipelineSchedulesTable {
  id: Generated<number>;
  project_id: number;
  description: string;
  ref: string;
  cron: string;
  cron_timezone: string;
  next_run_at: string | null;
  active: number;
  owner_id: number | null;
  last_pipeline_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface CiPipelineScheduleVariablesTable {
  id: Generated<number>;
  schedule_id: number;
  key: string;
  value: string;
  variable_type: string;
  created_at: string;
  updated_at: string;
}

export interface EnvironmentsTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  slug: string;
  external_url: string | null;
  state: string;
  created_at: string;
  updated_at: string;
  /** Migration 053. */
  tier: Generated<string>;
  auto_stop_at: string | null;
  /** Migration 056. */
  merge_request_id: number | null;
}

export interface DeploymentsTable {
  id: Generated<number>;
  iid: number;
  project_id: number;
  environment_id: number;
  job_id: number | null;
  ref: string;
  tag: number;
  sha: string;
  user_id: number | null;
  status: string;
  on_stop: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** Merge requests a successful deployment shipped (migration 042). */
export interface DeploymentMergeRequestsTable {
  deployment_id: number;
  merge_request_id: number;
  environment_id: number;
}

export interface TasksTable {
  id: Generated<number>;
  kind: string;
  /** JSON. */
  payload: string;
  status: string;
  run_at: string;
  attempts: number;
  max_attempts: number;
  locked_by: string | null;
  locked_until: string | null;
  last_error: string | null;
  dedupe_key: string | null;
  created_at: string;
  updated_at: string;
}

/** Attempts of the task queue per kind (migration 028); bigint on PostgreSQL, read with Number(). */
export interface TaskCountersTable {
  kind: string;
  processed: number;
  failed: number;
}
