import type { Generated } from '#deps/kysely';
import type { AutoCancelOnJobFailure, AutoCancelOnNewCommit } from '../../ci/model.ts';

/**
 * Tables of migration 014 (pipelines, stages, jobs, artifacts, trace chunks); part of
 * DatabaseSchema (schema.ts). Booleans 0/1, timestamps ISO text, lists and objects JSON text.
 */
export interface InternalIdsTable {
  project_id: number;
  /** `ci_pipelines` or `deployments`. */
  usage: string;
  last_value: number;
}

export interface CiPipelinesTable {
  id: Generated<number>;
  iid: number;
  project_id: number;
  ref: string;
  tag: number;
  sha: string;
  before_sha: string;
  source: string;
  status: string;
  failure_reason: string | null;
  yaml_errors: string | null;
  user_id: number | null;
  protected: number;
  config_path: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  committed_at: string | null;
  duration: number | null;
  coverage: string | null;
  has_warnings: number;
  parent_pipeline_id: number | null;
  source_job_id: number | null;
  schedule_id: number | null;
  trigger_id: number | null;
  lock_version: Generated<number>;
  /** The merge request this pipeline ran for (migration 030). */
  merge_request_id: Generated<number | null>;
  /** Migration 047: GitLab's pipeline metadata. */
  name: Generated<string | null>;
  auto_cancel_on_new_commit: Generated<AutoCancelOnNewCommit>;
  auto_cancel_on_job_failure: Generated<AutoCancelOnJobFailure>;
}

export interface CiPipelineVariablesTable {
  id: Generated<number>;
  pipeline_id: number;
  key: string;
  value: string;
  variable_type: string;
}

export interface CiStagesTable {
  id: Generated<number>;
  pipeline_id: number;
  name: string;
  position: number;
  status: string;
}

export interface CiJobsTable {
  id: Generated<number>;
  pipeline_id: number;
  project_id: number;
  stage_id: number | null;
  stage: string;
  stage_idx: number;
  name: string;
  type: string;
  status: string;
  when: string;
  allow_failure: number;
  retried: number;
  failure_reason: string | null;
  exit_code: number | null;
  coverage: number | null;
  user_id: number | null;
  runner_id: number | null;
  runner_type: string | null;
  /** SHA-256 of the job token while a runner holds the job. */
  token_digest: string | null;
  /** JSON array, sorted. */
  tag_list: string;
  protected: number;
  ref: string;
  sha: string;
  tag: number;
  /** JSON JobDefinition. */
  definition: string | null;
  /** JSON JobNeed[] (pipeline shape), null = stage order. */
  needs: string | null;
  /** JSON RetryPolicy. */
  retry: string | null;
  start_in_seconds: number | null;
  environment: string | null;
  target_url: string | null;
  description: string | null;
  created_at: string;
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  scheduled_at: string | null;
  erased_at: string | null;
  updated_at: string;
  artifacts_expire_at: string | null;
  trace_size: number | null;
  trace_checksum: string | null;
  lock_version: Generated<number>;
  /** Migration 020: the runner manager that took the job announced `cancel_gracefully` (0/1). */
  cancel_gracefully: Generated<number>;
  /** Migration 050: JSON string[], a bridge's reasons its downstream pipeline was not created. */
  downstream_errors: string | null;
  resource_group: string | null;
  /** Migration 053: `environment:url` and `auto_stop_in`, expanded when the job is created (variables not set then kept as written). */
  environment_url: string | null;
  environment_auto_stop_in: string | null;
  /** Migration 058: JSON EnvironmentVariable[], the values of the variables the URL and auto_stop_in name, when the job was created. */
  environment_variables: string | null;
}

export interface CiJobArtifactsTable {
  id: Generated<number>;
  job_id: number;
  project_id: number;
  file_type: string;
  file_format: string;
  file_name: string;
  size: number;
  sha256: string;
  path: string;
  expire_at: string | null;
  created_at: string;
}

/** A variable of a job's dotenv report (migration 023). */
export interface CiJobVariablesTable {
  artifact_id: number;
  job_id: number;
  position: number;
  key: string;
  value: string;
}

export interface CiArtifactEntriesTable {
  artifact_id: number;
  path: string;
  kind: string;
  size: number;
  compressed_size: number;
  crc32: number;
  mode: number;
  modified_at: string | null;
  /** Null in rows recorded before member locations were kept (020). */
  header_offset: number | null;
  compression: number | null;
}

/** Trace bytes in the database (several coordinators): one row per appended patch. */
export interface CiTraceChunksTable {
  job_id: number;
  start_offset: number;
  end_offset: number;
  data: Uint8Array;
  /** CRC-32 of the whole trace up to end_offset (unsigned). */
  crc32: number;
}

/** Migration 057: a project's resource groups (GitLab's `ci_resource_groups`), one per key its jobs named. */
export interface CiResourceGroupsTable {
  id: Generated<number>;
  project_id: number;
  /** The key as `ci_jobs.resource_group` holds it (expanded). */
  key: string;
  /** `unordered`, `oldest_first`, `newest_first` or `newest_ready_first`. */
  process_mode: string;
  created_at: string;
  updated_at: string;
}
