/**
 * CI pipelines, their variables and stages.
 * Records use the API's field names with real booleans; timestamps are ISO 8601 UTC text.
 */
import type { AutoCancelOnJobFailure, AutoCancelOnNewCommit } from '../ci/model.ts';
import type { JobStatus, PipelineStatus } from '../pipeline/types.ts';

export type { JobStatus, PipelineStatus };

export const PIPELINE_STATUSES: readonly PipelineStatus[] = ['created', 'waiting_for_resource', 'pending', 'running', 'canceling', 'success', 'failed', 'canceled', 'skipped', 'manual', 'scheduled'];

export interface PipelineRecord {
  id: number;
  /** Per-project number (`iid`), allocated on creation. */
  iid: number;
  project_id: number;
  ref: string;
  tag: boolean;
  sha: string;
  before_sha: string;
  /** push, web, trigger, schedule, api, external, pipeline, parent_pipeline, chat, ... */
  source: string;
  status: PipelineStatus;
  failure_reason: string | null;
  yaml_errors: string | null;
  user_id: number | null;
  protected: boolean;
  config_path: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  committed_at: string | null;
  /** Seconds. */
  duration: number | null;
  coverage: string | null;
  has_warnings: boolean;
  parent_pipeline_id: number | null;
  /** The bridge job that created this (downstream) pipeline. */
  source_job_id: number | null;
  schedule_id: number | null;
  trigger_id: number | null;
  /** The merge request a `merge_request_event` pipeline ran for. */
  merge_request_id: number | null;
  /** Bumped by every update. */
  lock_version: number;
  /** `workflow:name` with its variables expanded (GitLab's pipeline metadata). */
  name: string | null;
  /** What a newer pipeline of the ref may cancel of this one (`workflow:auto_cancel:on_new_commit`). */
  auto_cancel_on_new_commit: AutoCancelOnNewCommit;
  /** `all`: a job that fails (and is not allowed to) cancels this pipeline. */
  auto_cancel_on_job_failure: AutoCancelOnJobFailure;
}

type PipelineDefaults =
  | 'tag' | 'before_sha' | 'failure_reason' | 'yaml_errors' | 'user_id' | 'protected' | 'config_path' | 'started_at'
  | 'finished_at' | 'committed_at' | 'duration' | 'coverage' | 'has_warnings' | 'parent_pipeline_id' | 'source_job_id'
  | 'schedule_id' | 'trigger_id' | 'merge_request_id' | 'updated_at' | 'name' | 'auto_cancel_on_new_commit' | 'auto_cancel_on_job_failure';

/** What creating a pipeline needs; omitted fields take their empty value (`updated_at`: `created_at`). */
export type NewPipeline = Omit<PipelineRecord, 'id' | 'iid' | 'lock_version' | PipelineDefaults> & Partial<Pick<PipelineRecord, PipelineDefaults>>;

export type PipelineChanges = Partial<Omit<PipelineRecord, 'id' | 'iid' | 'project_id' | 'created_at' | 'lock_version'>>;

export type PipelineScope = 'running' | 'pending' | 'finished' | 'branches' | 'tags';
export type PipelineOrder = 'id' | 'status' | 'ref' | 'updated_at' | 'user_id';

export interface PipelineListFilter {
  projectId: number;
  /** `branches`/`tags`: the latest pipeline of each ref of that kind. `finished`: success, failed, canceled, skipped. */
  scope?: PipelineScope;
  status?: PipelineStatus;
  ref?: string;
  sha?: string;
  /** true: only pipelines with configuration errors; false: only those without. */
  yamlErrors?: boolean;
  /** Of the triggering user, case-insensitive. */
  username?: string;
  /** Full name of the triggering user (`name` parameter). */
  userName?: string;
  source?: string;
  /** Only the pipelines this pipeline schedule created. */
  scheduleId?: number;
  updatedBefore?: string;
  updatedAfter?: string;
  createdBefore?: string;
  createdAfter?: string;
  orderBy?: PipelineOrder;
  sort?: 'asc' | 'desc';
}

export interface Page {
  offset: number;
  limit: number;
}

export interface PipelinesStore {
  /** Inserts the pipeline with the project's next iid (safe when several creators race). */
  create(pipeline: NewPipeline): Promise<PipelineRecord>;
  findById(id: number): Promise<PipelineRecord | undefined>;
  findByIds(ids: readonly number[]): Promise<PipelineRecord[]>;
  /** Only when the pipeline belongs to the project. */
  findInProject(projectId: number, id: number): Promise<PipelineRecord | undefined>;
  /**
   * Reads the pipeline and keeps others from processing it until the caller's transaction
   * ends (`FOR UPDATE` on PostgreSQL; on SQLite the write transaction is already exclusive).
   * Call it inside `CiTransactions.run`.
   */
  lockForProcessing(id: number): Promise<PipelineRecord | undefined>;
  /** Bumps lock_version; with nothing to change, answers the current row. */
  update(id: number, changes: PipelineChanges): Promise<PipelineRecord | undefined>;
  delete(id: number): Promise<boolean>;
  list(filter: PipelineListFilter, page: Page): Promise<{ items: PipelineRecord[]; total: number }>;
  /**
   * The newest pipeline for the sha (and the ref when given): commit status and `last_pipeline`.
   * Child pipelines (source `parent_pipeline`) are left out, as GitLab's `ci_pipelines` leave
   * them out: a commit's pipeline is its parent's.
   */
  latestFor(projectId: number, sha: string, ref?: string): Promise<PipelineRecord | undefined>;
  /** The newest successful pipeline of a ref. */
  latestSuccessfulForRef(projectId: number, ref: string): Promise<PipelineRecord | undefined>;
  /** Pipelines created by a bridge job (downstream and child pipelines). */
  listBySourceJobs(jobIds: readonly number[]): Promise<PipelineRecord[]>;
}

export type CiVariableType = 'env_var' | 'file';

export interface PipelineVariableRecord {
  key: string;
  value: string;
  variable_type: CiVariableType;
}

/** Variables given to one pipeline (API run, trigger, schedule, downstream). */
export interface PipelineVariablesStore {
  /** Adds the variables; a key given twice keeps the last value. */
  add(pipelineId: number, variables: readonly PipelineVariableRecord[]): Promise<void>;
  list(pipelineId: number): Promise<PipelineVariableRecord[]>;
}

export interface StageRecord {
  id: number;
  pipeline_id: number;
  name: string;
  /** The stage's index in the pipeline's declared stages. */
  position: number;
  status: JobStatus;
}

export interface StagesStore {
  /** Inserts the stages; answers them in `position` order. */
  insertMany(pipelineId: number, stages: ReadonlyArray<{ name: string; position: number; status: JobStatus }>): Promise<StageRecord[]>;
  listForPipeline(pipelineId: number): Promise<StageRecord[]>;
  /** Sets the status of the named stages whose status differs. */
  updateStatuses(pipelineId: number, statuses: ReadonlyArray<{ name: string; status: JobStatus }>): Promise<void>;
}
