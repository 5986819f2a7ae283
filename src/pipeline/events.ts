import { assertJobPlayable, assertJobRetryable, isJobCancelable } from './capabilities.ts';
import { normalizeFailureReason, shouldAutoRetry } from './failure-reasons.ts';
import { OUTDATED_DEPLOYMENT_FAILURE, processJobs } from './process.ts';
import { resetSkippedDependents, retriedCountForName, retryJobAt, retryPipelineJobs } from './retry.ts';
import { summarizePipeline } from './summary.ts';
import { assertTransition, cannotTransitionVia } from './transitions.ts';
import type { EventContext, EventResult, JobId, PipelineEvent, PipelineState, ReportedJobStatus } from './types.ts';
import { WorkingSet } from './working-set.ts';

/**
 * Applies one event to a pipeline and processes it (§3–§6). Pure: the input is not mutated,
 * the clock is `context.now`. Returns the net job changes and the new pipeline status.
 * Cost: O(jobs + needs) of this pipeline.
 *
 * Throws GantryError where the API must refuse: GANTRY_E_JOB_NOT_FOUND, _JOB_TRANSITION_INVALID,
 * _JOB_NOT_PLAYABLE, _JOB_NOT_RETRYABLE. Canceling a job that is not cancelable and a
 * timer for a job that is not (or not yet) due are no-ops, as in GitLab.
 */
export function handleEvent(pipeline: PipelineState, event: PipelineEvent, context: EventContext): EventResult {
  const workingSet = new WorkingSet(pipeline.jobs, context.allocateJobId);
  const outdated = context.outdatedDeploymentJobIds ?? NONE_OUTDATED;
  const resultIndex = applyEvent(workingSet, event, context.now, outdated);
  resetSkippedDependents(workingSet, workingSet.takeRevived());
  processJobs(workingSet, context.now, outdated);

  const jobs = workingSet.jobs();
  const summary = summarizePipeline(jobs, pipeline.status);
  return {
    changes: workingSet.changes(),
    jobs,
    pipelineStatus: summary.status,
    pipelineStatusChanged: summary.status !== pipeline.status,
    hasWarnings: summary.hasWarnings,
    stages: summary.stages,
    ...(resultIndex === null ? {} : { resultJob: workingSet.job(resultIndex) }),
  };
}

const NONE_OUTDATED: ReadonlySet<JobId> = new Set();

/** Applies the event's own transitions; returns the index of the job to show, if any. */
function applyEvent(workingSet: WorkingSet, event: PipelineEvent, now: number, outdated: ReadonlySet<JobId>): number | null {
  switch (event.type) {
    case 'process':
      return null;
    case 'job-status':
      return applyReportedStatus(workingSet, workingSet.indexOf(event.jobId), event.status, event.failureReason, event.exitCode ?? null);
    case 'cancel-job': {
      const index = workingSet.indexOf(event.jobId);
      const job = workingSet.job(index);
      if (event.force === true && job.status === 'canceling' && !job.retried) workingSet.transition(index, 'canceled');
      else cancelJobAt(workingSet, index);
      return index;
    }
    case 'retry-job': {
      const index = workingSet.indexOf(event.jobId);
      assertJobRetryable(workingSet.job(index));
      return retryJobAt(workingSet, index);
    }
    case 'play-job': {
      const index = workingSet.indexOf(event.jobId);
      const job = workingSet.job(index);
      assertJobPlayable(job);
      // PlayBuildService: enqueue a waiting action; a finished one is retried instead.
      if (job.status === 'manual' || job.status === 'scheduled') {
        workingSet.enqueue(index);
        return index;
      }
      return retryJobAt(workingSet, index);
    }
    case 'unschedule-job': {
      const index = workingSet.indexOf(event.jobId);
      const status = workingSet.job(index).status;
      if (status !== 'scheduled') throw cannotTransitionVia('unschedule', status);
      workingSet.transition(index, 'manual');
      return index;
    }
    case 'scheduled-time-reached': {
      const index = workingSet.indexOf(event.jobId);
      const job = workingSet.job(index);
      const due = job.scheduledAt !== null && job.scheduledAt !== undefined && job.scheduledAt <= now;
      if (job.status === 'scheduled' && due) workingSet.enqueue(index);
      return index;
    }
    case 'assign-resource': {
      const index = workingSet.indexOf(event.jobId);
      const job = workingSet.job(index);
      if (job.status !== 'waiting_for_resource' || job.retried) return index;
      if (outdated.has(job.id)) workingSet.transition(index, 'failed', { failureReason: OUTDATED_DEPLOYMENT_FAILURE });
      else workingSet.transition(index, 'pending');
      return index;
    }
    case 'cancel-pipeline':
      for (const index of workingSet.latestIndices()) cancelJobAt(workingSet, index);
      return null;
    case 'cancel-jobs':
      for (const jobId of event.jobIds) cancelJobAt(workingSet, workingSet.indexOf(jobId));
      return null;
    case 'retry-pipeline':
      retryPipelineJobs(workingSet, new Set(event.keepJobIds ?? []));
      return null;
    case 'downstream-status': {
      const index = workingSet.indexOf(event.jobId);
      const job = workingSet.job(index);
      if (job.retried || job.status === event.status) return index;
      // Ci::Bridge#inherit_status_from_downstream: `failed!` carries no reason.
      workingSet.inherit(index, event.status, event.status === 'failed' ? 'unknown_failure' : null);
      return index;
    }
  }
}

/**
 * GitLab's `cancel` event: a running job whose runner cancels gracefully goes to `canceling`
 * (its runner is told, runs after_script, then reports); any other cancelable job to `canceled`.
 */
function cancelJobAt(workingSet: WorkingSet, index: number): void {
  const job = workingSet.job(index);
  if (!isJobCancelable(job)) return;
  workingSet.transition(index, job.status === 'running' && job.cancelGracefully === true ? 'canceling' : 'canceled');
}

function applyReportedStatus(
  workingSet: WorkingSet,
  index: number,
  status: ReportedJobStatus,
  rawFailureReason: string | null | undefined,
  exitCode: number | null,
): number {
  const job = workingSet.job(index);
  if (job.status === 'canceling' && (status === 'success' || status === 'failed')) {
    // `drop` and `success` of a canceling job: the runner finished its after_script.
    workingSet.transition(index, 'canceled');
    return index;
  }
  if (status === 'running' && job.external && job.status === 'created') {
    // An external status reported as running is enqueued first, then run (§9 step 6).
    workingSet.transition(index, 'pending');
  }
  assertTransition(workingSet.job(index).status, status);
  if (status !== 'failed') {
    workingSet.transition(index, status);
    return index;
  }
  const reason = normalizeFailureReason(job.external ? 'api_failure' : rawFailureReason);
  workingSet.transition(index, 'failed', { failureReason: reason });
  if (shouldAutoRetry(job, reason, retriedCountForName(workingSet, job.name), exitCode)) {
    retryJobAt(workingSet, index);
  }
  return index;
}
