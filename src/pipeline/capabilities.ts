import { GantryError } from '../shared/errors.ts';
import { isCancelableStatus } from './statuses.ts';
import type { PipelineJob } from './types.ts';

/** Whether `POST /jobs/:id/cancel` changes the job: created, pending, running or scheduled. */
export function isJobCancelable(job: PipelineJob): boolean {
  return !job.retried && isCancelableStatus(job.status);
}

/** `retryable?` (§3.2): a latest build that finished as success, failed or canceled, or is canceling. */
export function isJobRetryable(job: PipelineJob): boolean {
  if (job.external || job.retried) return false;
  return job.status === 'success' || job.status === 'failed' || job.status === 'canceled' || job.status === 'canceling';
}

/** A manual or delayed job ("action", §3.2). */
export function isJobAction(job: PipelineJob): boolean {
  return job.when === 'manual' || job.when === 'delayed';
}

/** `playable?` (§3.2): an action that is manual, scheduled, or retryable. */
export function isJobPlayable(job: PipelineJob): boolean {
  if (!isJobAction(job) || job.external || job.retried) return false;
  return job.status === 'manual' || job.status === 'scheduled' || isJobRetryable(job);
}

/** GANTRY_E_JOB_NOT_RETRYABLE, in the words of GitLab's jobs API. */
export function assertJobRetryable(job: PipelineJob): void {
  if (!isJobRetryable(job)) throw new GantryError('GANTRY_E_JOB_NOT_RETRYABLE', 'Job is not retryable', { reason: 'Job is not retryable' });
}

/** GANTRY_E_JOB_NOT_PLAYABLE, in the words of GitLab's jobs API. */
export function assertJobPlayable(job: PipelineJob): void {
  if (!isJobPlayable(job)) throw new GantryError('GANTRY_E_JOB_NOT_PLAYABLE', 'Unplayable Job');
}

/** A pipeline is cancelable while any latest job is cancelable (§6). */
export function isPipelineCancelable(jobs: readonly PipelineJob[]): boolean {
  return jobs.some(isJobCancelable);
}

/** A pipeline retry has work to do while any latest build failed or was canceled (§6). */
export function isPipelineRetryable(jobs: readonly PipelineJob[]): boolean {
  return jobs.some(
    (job) => isJobRetryable(job) && (job.status === 'failed' || job.status === 'canceled'),
  );
}
