import { isJobRetryable } from './capabilities.ts';
import type { JobId } from './types.ts';
import { enqueuedStatusOf, type WorkingSet } from './working-set.ts';

/**
 * Retry of one job (§6): a new job replaces it and the old one is marked retried. A user
 * retry (and an automatic one) enqueues the new job at once, even a manual one (10.x
 * `RetryBuildService`; the jobs API answers with the job `pending`, or `waiting_for_resource`
 * for a job of a `resource_group`).
 */
export function retryJobAt(workingSet: WorkingSet, index: number): number {
  const name = workingSet.job(index).name;
  // AddJobService marks every older job of the name retried, not only the one retried.
  for (let other = 0; other < workingSet.size; other++) {
    const job = workingSet.job(other);
    if (job.name === name && !job.retried) workingSet.markRetried(other);
  }
  return workingSet.addClone(index, enqueuedStatusOf(workingSet.job(index)));
}

/** `retries_count`: jobs of this name the pipeline already holds as retried. */
export function retriedCountForName(workingSet: WorkingSet, name: string): number {
  let count = 0;
  for (let index = 0; index < workingSet.size; index++) {
    const job = workingSet.job(index);
    if (job.retried && job.name === name) count++;
  }
  return count;
}

/**
 * `ResetSkippedJobsService`: after `sources` became alive again (retried, played,
 * enqueued), every latest skipped job in a later stage, and every skipped job that needs
 * one of them directly or transitively, goes back to `created` so processing decides anew.
 */
export function resetSkippedDependents(workingSet: WorkingSet, sources: readonly number[]): void {
  if (sources.length === 0) return;
  const latest = workingSet.latestIndices();

  const neededBy = new Map<string, number[]>();
  for (const index of latest) {
    for (const need of workingSet.job(index).needs ?? []) {
      const list = neededBy.get(need.name);
      if (list) list.push(index);
      else neededBy.set(need.name, [index]);
    }
  }

  const descendants = new Set<number>();
  const queue = sources.map((index) => workingSet.job(index).name);
  for (let cursor = 0; cursor < queue.length; cursor++) {
    for (const dependent of neededBy.get(queue[cursor]) ?? []) {
      if (descendants.has(dependent)) continue;
      descendants.add(dependent);
      queue.push(workingSet.job(dependent).name);
    }
  }

  const earliestStage = Math.min(...sources.map((index) => workingSet.job(index).stageIdx));
  for (const index of latest) {
    const job = workingSet.job(index);
    if (job.status !== 'skipped') continue;
    if (job.stageIdx > earliestStage || descendants.has(index)) workingSet.transition(index, 'created');
  }
}

/**
 * Pipeline retry (§6, `RetryPipelineService`): each latest failed or canceled build gets a
 * new job in `created`, except those in `keep` (the caller may not retry them); each latest
 * skipped job goes back to `created`. Jobs never played stay `manual`. Processing afterwards
 * decides what runs.
 */
export function retryPipelineJobs(workingSet: WorkingSet, keep: ReadonlySet<JobId> = new Set()): void {
  const latest = workingSet.latestIndices();
  for (const index of latest) {
    const job = workingSet.job(index);
    if (job.status === 'skipped') {
      workingSet.transition(index, 'created');
    } else if ((job.status === 'failed' || job.status === 'canceled') && isJobRetryable(job) && !keep.has(job.id)) {
      workingSet.markRetried(index);
      workingSet.addClone(index, 'created');
    }
  }
}
