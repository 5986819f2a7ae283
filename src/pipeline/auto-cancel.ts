import { allowedAutoRetries } from './failure-reasons.ts';
import { OUTDATED_DEPLOYMENT_FAILURE } from './process.ts';
import type { EventResult, JobId, PipelineJob } from './types.ts';

/**
 * Whether the event failed a job for which `workflow:auto_cancel:on_job_failure: all` cancels
 * its pipeline: a build or a bridge (not an external commit status) that may not fail and is
 * not being retried automatically (GitLab's `can_auto_cancel_pipeline_on_job_failure?`).
 * Cost: O(changes + jobs).
 */
export function failedJobCancelsPipeline(result: Pick<EventResult, 'changes' | 'jobs'>): boolean {
  const failed = new Set<JobId>();
  for (const change of result.changes) if (change.kind === 'update' && change.patch.status === 'failed') failed.add(change.jobId);
  if (failed.size === 0) return false;
  return result.jobs.some((job) => failed.has(job.id) && job.status === 'failed' && !job.external && !job.allowFailure && !job.retried && !retryExpectedOfOutdated(job, result.jobs));
}

/**
 * A job failed as an outdated deployment whose `retry:` names the reason: GitLab's
 * `auto_retry_expected?` reads only the retry policy, so it expects a retry and leaves the
 * pipeline alone, though the retry itself is then refused (see OUTDATED_DEPLOYMENT_FAILURE).
 */
function retryExpectedOfOutdated(job: PipelineJob, jobs: readonly PipelineJob[]): boolean {
  if (job.failureReason !== OUTDATED_DEPLOYMENT_FAILURE) return false;
  const retriedOfName = jobs.filter((other) => other.retried && other.name === job.name).length;
  return retriedOfName < allowedAutoRetries(job, OUTDATED_DEPLOYMENT_FAILURE);
}
