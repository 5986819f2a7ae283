/**
 * What the job page says of a failed job's reason: GitLab's `CommitStatusPresenter`
 * `CALLOUT_FAILURE_MESSAGES` (its job page's callout), word for word, and the reasons it links
 * to a troubleshooting page (`troubleshooting_doc`, here GitLab's documentation site: Gantry has
 * no help pages). A `Record` over every reason, so a reason added to the enum without its text
 * does not compile.
 */
import type { FailureReason } from '../../pipeline/types.ts';

/** `null`: GitLab shows no callout (a script failure: the log says what failed). */
const CALLOUT_MESSAGES: Readonly<Record<FailureReason, string | null>> = {
  unknown_failure: 'There is an unknown failure, please try again',
  script_failure: null,
  api_failure: 'There has been an API failure, please try again',
  stuck_or_timeout_failure: 'There has been a timeout failure or the job got stuck. Check your timeout limits or try again',
  runner_system_failure: 'There has been a runner system failure, please try again',
  runner_configuration_error: 'There has been a configuration error. Check your job configuration or contact your runner administrator.',
  runner_external_dependency_failure: 'The runner could not reach an external dependency. Please try again.',
  runner_interrupted: 'The runner process was interrupted before this job could finish. The job is safe to retry.',
  missing_dependency_failure: 'There has been a missing dependency failure',
  runner_unsupported: 'No runners support the requirements to run this job.',
  stale_schedule: 'Delayed job could not be executed by some reason, please try again',
  job_execution_timeout: 'The script exceeded the maximum execution time set for the job',
  job_execution_server_timeout: 'The script exceeded the maximum execution time set for the job',
  stuck_pending_with_matching_runners: 'The job was stuck in pending state with matching runners available. Check your job configuration or try again',
  stuck_pending_no_matching_runners: 'The job was stuck in pending state with no matching runners available. Check your runner tags or configuration',
  no_updates_running: 'The job was running but showed no activity for an extended period. Check your job script or try again',
  no_updates_canceling: 'The job was canceling but showed no activity for an extended period. Try again',
  server_timeout_running: 'The running job exceeded the maximum execution time set for the job',
  server_timeout_canceling: 'The canceling job exceeded the maximum execution time set for the job',
  archived_failure: 'The job is archived and cannot be run',
  unmet_prerequisites: 'The job failed to complete prerequisite tasks',
  scheduler_failure: 'The scheduler failed to assign job to the runner, please try again or contact system administrator',
  data_integrity_failure: 'There has been an unknown job problem, please contact your system administrator with the job ID to review the logs',
  forward_deployment_failure: 'The deployment job is older than the previously succeeded deployment job, and therefore cannot be run',
  pipeline_loop_detected: 'This job could not be executed because it would create infinitely looping pipelines',
  insufficient_upstream_permissions: 'This job could not be executed because of insufficient permissions to track the upstream project.',
  upstream_bridge_project_not_found: 'This job could not be executed because upstream bridge project could not be found.',
  invalid_bridge_trigger: 'This job could not be executed because downstream pipeline trigger definition is invalid',
  downstream_project_trigger_resolved_to_empty:
    'This job could not be executed because the trigger:project value resolved to a blank value. Check that the variables or inputs used in trigger:project are set.',
  downstream_bridge_project_not_found: 'This job could not be executed because downstream bridge project could not be found',
  protected_environment_failure: 'The environment this job is deploying to is protected. Only users with permission may successfully run this job.',
  insufficient_bridge_permissions: 'This job could not be executed because of insufficient permissions to create a downstream pipeline',
  bridge_pipeline_is_child_pipeline: 'This job belongs to a child pipeline and cannot create further child pipelines',
  downstream_pipeline_creation_failed: 'The downstream pipeline could not be created',
  secrets_provider_not_found: 'The secrets provider can not be found. Check your CI/CD variables and try again.',
  reached_max_descendant_pipelines_depth: 'You reached the maximum depth of child pipelines',
  reached_max_pipeline_hierarchy_size: 'The downstream pipeline tree is too large',
  project_deleted: 'The job belongs to a deleted project',
  user_blocked: 'The user who created this job is blocked',
  ci_quota_exceeded: 'No more compute minutes available',
  no_matching_runner: 'No matching runner available',
  trace_size_exceeded: 'The job log size limit was reached',
  builds_disabled: 'The CI/CD is disabled for this project',
  environment_creation_failure: 'This job could not be executed because it would create an environment with an invalid parameter.',
  deployment_rejected: 'This deployment job was rejected.',
  ip_restriction_failure: "This job could not be executed because group IP address restrictions are enabled, and the runner's IP address is not in the allowed range.",
  duo_workflow_not_allowed:
    'Duo Agent Platform cannot run on this runner. Duo jobs can only run on instance wide or top level group runners. Be sure to remove the gitlab--duo tag from this runner to avoid it picking these jobs.',
  failed_outdated_deployment_job: 'The deployment job is older than the latest deployment, and therefore failed.',
  reached_downstream_pipeline_trigger_rate_limit: 'Too many downstream pipelines triggered in the last minute. Try again later.',
  job_router_failure: 'The Job Router failed to run this job.',
  job_token_expired: 'The CI job token has expired. The job may have exceeded the maximum time limit.',
  id_token_burned_project_path:
    "ID token issuance is disabled in CI because this project's path was previously used by a different project. "
    + 'To restore ID tokens, set `ci_id_token_sub_claim_components` to start with `project_id` '
    + '(for example, `["project_id", "ref_type", "ref"]`) and update your cloud trust policy to match.',
};

const GITLAB_DOCS = 'https://docs.gitlab.com';

const TROUBLESHOOTING_PAGES: Partial<Readonly<Record<FailureReason, string>>> = {
  environment_creation_failure: `${GITLAB_DOCS}/ci/environments/#error-job-would-create-an-environment-with-an-invalid-parameter`,
  failed_outdated_deployment_job: `${GITLAB_DOCS}/ci/environments/deployment_safety/#prevent-outdated-deployment-jobs`,
  id_token_burned_project_path: `${GITLAB_DOCS}/ci/secrets/id_token_authentication/#error-id-token-issuance-is-disabled`,
};

/** GitLab's `job_router_failure` callout adds the job's own message, else this. */
const JOB_ROUTER_FALLBACK = 'Please contact your administrator.';

export interface FailureCallout {
  message: string;
  /** GitLab's "How do I fix it?" page, for the few reasons it has one. */
  helpUrl: string | null;
}

function isKnownReason(reason: string): reason is FailureReason {
  return Object.hasOwn(CALLOUT_MESSAGES, reason);
}

/**
 * The callout of a failed job's reason, or null when GitLab shows none (a script failure).
 * A value outside the enum (none is stored: a runner's are normalized) is shown as it is.
 */
export function failureCallout(reason: string): FailureCallout | null {
  if (!isKnownReason(reason)) return { message: reason, helpUrl: null };
  const message = CALLOUT_MESSAGES[reason];
  if (message === null) return null;
  // Gantry records no job messages: the fallback is what GitLab shows without one.
  const text = reason === 'job_router_failure' ? `${message} ${JOB_ROUTER_FALLBACK}` : message;
  return { message: text, helpUrl: TROUBLESHOOTING_PAGES[reason] ?? null };
}
