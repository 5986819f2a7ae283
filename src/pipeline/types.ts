/**
 * Plain-data shapes for the pipeline state rules. The coordinator maps its rows onto these
 * (`runner exec` runs that same coordinator in-process).
 */

/**
 * Job statuses (§3.1): the 10.x set, `scheduled`, `waiting_for_resource` (12.7: a job of a
 * `resource_group` until its group's resource is assigned to it), and `canceling` (16.x: a
 * canceled job whose runner runs its after_script before it reports; only runners announcing
 * `cancel_gracefully`).
 */
export type JobStatus =
  | 'created'
  | 'waiting_for_resource'
  | 'pending'
  | 'running'
  | 'canceling'
  | 'success'
  | 'failed'
  | 'canceled'
  | 'skipped'
  | 'manual'
  | 'scheduled';

/** A pipeline uses the same vocabulary as its jobs (§5.4). */
export type PipelineStatus = JobStatus;

export type JobWhen = 'on_success' | 'on_failure' | 'always' | 'manual' | 'delayed';

/** `CommitStatus#failure_reason` values (§3.3, the modern enum up to GitLab 19.1's runner reasons, with the bridge reasons of downstream pipelines). */
export type FailureReason =
  | 'unknown_failure'
  | 'script_failure'
  | 'api_failure'
  | 'stuck_or_timeout_failure'
  | 'runner_system_failure'
  | 'missing_dependency_failure'
  | 'runner_unsupported'
  | 'stale_schedule'
  | 'job_execution_timeout'
  | 'archived_failure'
  | 'unmet_prerequisites'
  | 'scheduler_failure'
  | 'data_integrity_failure'
  | 'forward_deployment_failure'
  | 'user_blocked'
  | 'project_deleted'
  | 'ci_quota_exceeded'
  | 'pipeline_loop_detected'
  | 'no_matching_runner'
  | 'trace_size_exceeded'
  | 'builds_disabled'
  | 'environment_creation_failure'
  | 'deployment_rejected'
  | 'failed_outdated_deployment_job'
  | 'job_execution_server_timeout'
  | 'stuck_pending_with_matching_runners'
  | 'stuck_pending_no_matching_runners'
  | 'no_updates_running'
  | 'no_updates_canceling'
  | 'server_timeout_running'
  | 'server_timeout_canceling'
  | 'runner_configuration_error'
  | 'runner_external_dependency_failure'
  | 'runner_interrupted'
  | 'protected_environment_failure'
  | 'duo_workflow_not_allowed'
  | 'job_router_failure'
  | 'job_token_expired'
  | 'id_token_burned_project_path'
  | BridgeFailureReason;

/** Why a bridge job failed to create its downstream pipeline (`Enums::Ci::CommitStatus`, 1001–1012 and 1017). */
export type BridgeFailureReason =
  | 'insufficient_bridge_permissions'
  | 'downstream_bridge_project_not_found'
  | 'invalid_bridge_trigger'
  | 'upstream_bridge_project_not_found'
  | 'insufficient_upstream_permissions'
  | 'bridge_pipeline_is_child_pipeline'
  | 'downstream_pipeline_creation_failed'
  | 'secrets_provider_not_found'
  | 'reached_max_descendant_pipelines_depth'
  | 'ip_restriction_failure'
  | 'reached_max_pipeline_hierarchy_size'
  | 'reached_downstream_pipeline_trigger_rate_limit'
  | 'downstream_project_trigger_resolved_to_empty';

/** `retry:when` values: `always` or a failure reason (§6). */
export type RetryWhen = 'always' | FailureReason;

/** `retry: N` is `{ max: N, when: ['always'] }`. */
export interface RetryPolicy {
  readonly max: number;
  readonly when: readonly RetryWhen[];
  /** `retry:exit_codes`: a failure whose script exited with one of these is retried too. */
  readonly exitCodes?: readonly number[];
}

export interface JobNeed {
  readonly name: string;
  /** `needs:optional` — the need is ignored when no such job is in the pipeline. */
  readonly optional?: boolean;
  /** `needs:artifacts` (default true); carried for the coordinator, irrelevant to states. */
  readonly artifacts?: boolean;
}

export type JobId = number;

export interface PipelineJob {
  readonly id: JobId;
  readonly name: string;
  /** Name of the stage, for stage summaries. */
  readonly stage: string;
  /** Position of the stage in `stages` (§2.4). */
  readonly stageIdx: number;
  readonly status: JobStatus;
  readonly when: JobWhen;
  readonly allowFailure: boolean;
  /** `null` = ordered by stages; `[]` = no needs, starts at once; otherwise a DAG job (§4.5). */
  readonly needs: readonly JobNeed[] | null;
  readonly retry: RetryPolicy | null;
  /** A newer job of the same name replaced this one; retried jobs never count (§3.2). */
  readonly retried: boolean;
  /** `start_in` of a `when: delayed` job, in seconds. */
  readonly startInSeconds?: number;
  /** Epoch milliseconds at which a `scheduled` job is due; null when not scheduled. */
  readonly scheduledAt?: number | null;
  readonly failureReason?: FailureReason | null;
  /**
   * An external commit status (§9): counted in composites, never enqueued or skipped by
   * processing, never retried.
   */
  readonly external?: boolean;
  /**
   * The runner that took the job announced `cancel_gracefully` (GitLab's
   * `runtime_runner_features`): a cancel moves it to `canceling`, not `canceled`.
   */
  readonly cancelGracefully?: boolean;
  /**
   * The job's `resource_group` key, expanded: enqueuing it leads to `waiting_for_resource`,
   * and an `assign-resource` event moves it on to `pending`.
   */
  readonly resourceGroup?: string | null;
}

export interface PipelineState {
  readonly status: PipelineStatus;
  readonly jobs: readonly PipelineJob[];
}

/** Statuses a runner (or the commit-status API, §9) may report for a job. */
export type ReportedJobStatus = 'pending' | 'running' | 'success' | 'failed' | 'canceled' | 'skipped';

export type PipelineEvent =
  /** Initial processing when the pipeline is created; also safe to repeat (idempotent). */
  | { readonly type: 'process' }
  /** `failureReason` is the raw wire value; unknown values become `unknown_failure`. */
  | {
      readonly type: 'job-status';
      readonly jobId: JobId;
      readonly status: ReportedJobStatus;
      readonly failureReason?: string | null;
      /** The script's exit code the runner reported with a failure (for `retry:exit_codes`). */
      readonly exitCode?: number | null;
    }
  /**
   * `force` (GitLab 17's `force_cancel`): a `canceling` job whose runner never reports
   * becomes `canceled` at once.
   */
  | { readonly type: 'cancel-job'; readonly jobId: JobId; readonly force?: boolean }
  | { readonly type: 'retry-job'; readonly jobId: JobId }
  | { readonly type: 'play-job'; readonly jobId: JobId }
  | { readonly type: 'unschedule-job'; readonly jobId: JobId }
  /**
   * The job's resource group assigned it its resource (the caller decided the group is free):
   * `waiting_for_resource` → `pending`; a no-op for a job no longer waiting.
   */
  | { readonly type: 'assign-resource'; readonly jobId: JobId }
  /** A timer fired for a delayed job; enqueues it only if it is scheduled and due at `now`. */
  | { readonly type: 'scheduled-time-reached'; readonly jobId: JobId }
  | { readonly type: 'cancel-pipeline' }
  /** GitLab's safe cancellation (`workflow:auto_cancel:on_new_commit: interruptible`): these jobs only, those cancelable. */
  | { readonly type: 'cancel-jobs'; readonly jobIds: readonly JobId[] }
  /**
   * `keepJobIds`: failed or canceled jobs the caller may not retry (GitLab's `can_be_retried?`),
   * left as they are.
   */
  | { readonly type: 'retry-pipeline'; readonly keepJobIds?: readonly JobId[] }
  /**
   * A `strategy: depend` bridge takes its downstream pipeline's status: `running` while the
   * downstream runs (again, after a retry there), then its final status. As `Ci::Bridge`'s
   * inherit events, it moves from any status; a retried bridge is left alone.
   */
  | { readonly type: 'downstream-status'; readonly jobId: JobId; readonly status: DownstreamBridgeStatus };

/** The statuses a `strategy: depend` bridge takes from its downstream pipeline. */
export type DownstreamBridgeStatus = 'running' | 'success' | 'failed' | 'canceled';

export interface EventContext {
  /** Epoch milliseconds; the rules never read the clock. */
  readonly now: number;
  /**
   * Id for a job that a retry creates. Defaults to one more than the highest id in the
   * pipeline; a coordinator may hand out provisional ids and map them when inserting.
   */
  readonly allocateJobId?: () => JobId;
  /**
   * Jobs whose deployment is outdated (GitLab's `has_outdated_deployment?`, decided by the
   * caller): processing and a resource group's assignment fail them with
   * `failed_outdated_deployment_job` instead of enqueuing them.
   */
  readonly outdatedDeploymentJobIds?: ReadonlySet<JobId>;
}

/** Only the fields that changed are present. */
export interface JobPatch {
  readonly status?: JobStatus;
  readonly retried?: boolean;
  readonly failureReason?: FailureReason | null;
  readonly scheduledAt?: number | null;
}

export interface JobUpdate {
  readonly kind: 'update';
  readonly jobId: JobId;
  readonly previousStatus: JobStatus;
  readonly patch: JobPatch;
}

/** A retry's new job: a copy of `cloneOf` with the fields shown (copy the rest from it). */
export interface JobCreation {
  readonly kind: 'create';
  readonly cloneOf: JobId;
  readonly job: PipelineJob;
}

export type JobChange = JobUpdate | JobCreation;

export interface StageSummary {
  readonly stageIdx: number;
  readonly name: string;
  readonly status: JobStatus;
  readonly hasWarnings: boolean;
}

export interface EventResult {
  /** Net changes to persist: creations first, then updates in job order. */
  readonly changes: readonly JobChange[];
  /** Every job of the pipeline after the event (equals `applyChanges(before, changes)`). */
  readonly jobs: readonly PipelineJob[];
  readonly pipelineStatus: PipelineStatus;
  readonly pipelineStatusChanged: boolean;
  /** "Passed with warnings": some latest job failed or was canceled but may fail (§5.1). */
  readonly hasWarnings: boolean;
  readonly stages: readonly StageSummary[];
  /**
   * The job an API caller should be shown: the updated job, or the new job a retry (or a
   * play that fell back to retry) created. Absent for pipeline-wide events and no-ops.
   */
  readonly resultJob?: PipelineJob;
}
