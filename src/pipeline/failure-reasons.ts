import type { FailureReason, PipelineJob, RetryWhen } from './types.ts';

export const FAILURE_REASONS: readonly FailureReason[] = [
  'unknown_failure',
  'script_failure',
  'api_failure',
  'stuck_or_timeout_failure',
  'runner_system_failure',
  'missing_dependency_failure',
  'runner_unsupported',
  'stale_schedule',
  'job_execution_timeout',
  'archived_failure',
  'unmet_prerequisites',
  'scheduler_failure',
  'data_integrity_failure',
  'forward_deployment_failure',
  'user_blocked',
  'project_deleted',
  'ci_quota_exceeded',
  'pipeline_loop_detected',
  'no_matching_runner',
  'trace_size_exceeded',
  'builds_disabled',
  'environment_creation_failure',
  'deployment_rejected',
  'failed_outdated_deployment_job',
  'job_execution_server_timeout',
  'stuck_pending_with_matching_runners',
  'stuck_pending_no_matching_runners',
  'no_updates_running',
  'no_updates_canceling',
  'server_timeout_running',
  'server_timeout_canceling',
  'runner_configuration_error',
  'runner_external_dependency_failure',
  'runner_interrupted',
  'protected_environment_failure',
  'insufficient_bridge_permissions',
  'downstream_bridge_project_not_found',
  'invalid_bridge_trigger',
  'upstream_bridge_project_not_found',
  'insufficient_upstream_permissions',
  'bridge_pipeline_is_child_pipeline',
  'downstream_pipeline_creation_failed',
  'secrets_provider_not_found',
  'reached_max_descendant_pipelines_depth',
  'ip_restriction_failure',
  'reached_max_pipeline_hierarchy_size',
  'reached_downstream_pipeline_trigger_rate_limit',
  'duo_workflow_not_allowed',
  'job_router_failure',
  'job_token_expired',
  'id_token_burned_project_path',
  'downstream_project_trigger_resolved_to_empty',
];

const KNOWN_REASONS: ReadonlySet<string> = new Set(FAILURE_REASONS);

export function isFailureReason(value: string): value is FailureReason {
  return KNOWN_REASONS.has(value);
}

/**
 * Wire value → enum. Missing and unknown values (including the runner's `job_canceled`)
 * become `unknown_failure`, as GitLab's UpdateBuildStateService does.
 */
export function normalizeFailureReason(raw: string | null | undefined): FailureReason {
  return raw !== null && raw !== undefined && isFailureReason(raw) ? raw : 'unknown_failure';
}

export function isRetryWhen(value: string): value is RetryWhen {
  return value === 'always' || isFailureReason(value);
}

const UNRECOVERABLE: ReadonlySet<FailureReason> = new Set([
  'script_failure',
  'missing_dependency_failure',
  'archived_failure',
  'scheduler_failure',
  'data_integrity_failure',
]);

/** `CommitStatus#unrecoverable_failure?` (§3.3). */
export function isUnrecoverableFailure(reason: FailureReason): boolean {
  return UNRECOVERABLE.has(reason);
}

const NEVER_AUTO_RETRIED: ReadonlySet<FailureReason> = new Set([
  'ci_quota_exceeded',
  'no_matching_runner',
  'missing_dependency_failure',
  'forward_deployment_failure',
  'environment_creation_failure',
]);

/**
 * GitLab's `failure_reason_aliases`: a broad reason that was split into finer ones still names
 * them in `retry:when`, so that a configuration written before the split keeps its meaning.
 */
const SUPERSEDED_BY: ReadonlyMap<FailureReason, ReadonlySet<FailureReason>> = new Map<FailureReason, ReadonlySet<FailureReason>>([
  ['stuck_or_timeout_failure', new Set<FailureReason>(['stuck_pending_with_matching_runners', 'stuck_pending_no_matching_runners', 'no_updates_running', 'no_updates_canceling'])],
  ['job_execution_timeout', new Set<FailureReason>(['server_timeout_running', 'server_timeout_canceling'])],
]);

/** Whether a `retry:when` list names the reason, itself or through a reason it superseded. */
function retryWhenNames(when: readonly RetryWhen[], reason: FailureReason): boolean {
  return when.some((value) => value === reason || (value !== 'always' && SUPERSEDED_BY.get(value)?.has(reason) === true));
}

/**
 * How many automatic retries a failure allows (`Gitlab::Ci::Build::AutoRetry`, §6): the
 * policy's `max` when its `when` names the reason (or `always`) or its `exit_codes` the
 * script's exit code.
 */
export function allowedAutoRetries(job: Pick<PipelineJob, 'retry'>, reason: FailureReason, exitCode: number | null = null): number {
  if (NEVER_AUTO_RETRIED.has(reason)) return 0;
  const policy = job.retry;
  const byExitCode = exitCode !== null && policy?.exitCodes?.includes(exitCode) === true;
  if (policy && (policy.when.includes('always') || retryWhenNames(policy.when, reason) || byExitCode)) return policy.max;
  if (reason === 'scheduler_failure') return 2;
  return 0;
}

/**
 * Whether a job that just failed with `reason` is retried automatically, given how many
 * jobs of its name the pipeline already holds as retried.
 */
export function shouldAutoRetry(
  job: Pick<PipelineJob, 'retry' | 'external'>,
  reason: FailureReason,
  retriedJobsOfSameName: number,
  exitCode: number | null = null,
): boolean {
  if (job.external) return false;
  return retriedJobsOfSameName < allowedAutoRetries(job, reason, exitCode);
}
