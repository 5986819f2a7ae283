import { StatusAccumulator } from './composite.ts';
import { isCompletedStatus } from './statuses.ts';
import type { FailureReason, JobId, JobStatus, JobWhen, PipelineJob } from './types.ts';
import type { WorkingSet } from './working-set.ts';

/**
 * Pipeline processing (§4.2, `AtomicProcessingService`): every `created` job whose prior is
 * complete is enqueued, made manual, scheduled or skipped. Stages run in order and, inside a
 * stage, jobs in `needs` order; statuses change in memory at once, so one pass sees the
 * decisions of earlier jobs and reaches the fixpoint. Cost: O(jobs + needs).
 */

const STAGE_PRIOR_ALLOWED: Readonly<Record<JobWhen, readonly JobStatus[]>> = {
  on_success: ['success', 'skipped'],
  manual: ['success', 'skipped'],
  delayed: ['success', 'skipped'],
  on_failure: ['failed'],
  always: ['success', 'failed', 'skipped'],
};

const DAG_PRIOR_ALLOWED: Readonly<Record<JobWhen, readonly JobStatus[]>> = {
  on_success: ['success'],
  manual: ['success'],
  delayed: ['success'],
  on_failure: ['failed'],
  always: ['success', 'failed', 'skipped'],
};

/** `valid_statuses_for_build` (§4.1 table): the priors under which a job may run. */
export function priorStatusesAllowing(when: JobWhen, isDagJob: boolean): readonly JobStatus[] {
  return (isDagJob ? DAG_PRIOR_ALLOWED : STAGE_PRIOR_ALLOWED)[when];
}

export type ProcessingDecision = 'wait' | 'enqueue' | 'actionize' | 'schedule' | 'skip';

/** What processing does with a `created` job given the composite of what it waits for. */
export function decideForCreatedJob(
  job: Pick<PipelineJob, 'when' | 'needs'>,
  prior: JobStatus,
): ProcessingDecision {
  if (!isCompletedStatus(prior)) return 'wait';
  if (!priorStatusesAllowing(job.when, job.needs !== null).includes(prior)) return 'skip';
  if (job.when === 'manual') return 'actionize';
  if (job.when === 'delayed') return 'schedule';
  return 'enqueue';
}

/**
 * GitLab's `Ci::ProcessBuildService#enqueue` of a job whose deployment is outdated drops it with
 * this. Its `retry:` never retries it, as in GitLab, where the auto-retry is the job user's
 * `RetryJobService`, whose permission check (`DeployablePolicy`) sees the deployment as outdated
 * as the drop did (memoized while the job was unfinished) and refuses: "Unable to auto-retry".
 */
export const OUTDATED_DEPLOYMENT_FAILURE = 'failed_outdated_deployment_job' satisfies FailureReason;

/** `outdated`: jobs whose deployment is outdated, failed instead of enqueued. */
export function processJobs(workingSet: WorkingSet, now: number, outdated: ReadonlySet<JobId> = new Set()): void {
  // A second pass is needed only for needs that point to a later stage, which the compiler
  // rejects; it stops as soon as a pass changes nothing.
  const maxPasses = workingSet.size + 1;
  for (let pass = 0; pass < maxPasses; pass++) {
    const { changed, hasForwardNeeds } = processOnce(workingSet, now, outdated);
    if (!changed || !hasForwardNeeds) return;
  }
}

function processOnce(workingSet: WorkingSet, now: number, outdated: ReadonlySet<JobId>): { changed: boolean; hasForwardNeeds: boolean } {
  const latestByName = latestIndexByName(workingSet);
  const { stages, hasForwardNeeds } = orderForProcessing(workingSet, latestByName);
  const earlierStages = new StatusAccumulator();
  let changed = false;
  for (const stage of stages) {
    const stagePrior = earlierStages.status() ?? 'success';
    for (const index of stage) {
      const job = workingSet.job(index);
      if (job.status !== 'created' || job.external) continue;
      const prior = job.needs === null ? stagePrior : needsPrior(workingSet, job, latestByName);
      if (applyDecision(workingSet, index, decideForCreatedJob(job, prior), now, outdated.has(job.id))) changed = true;
    }
    for (const index of stage) earlierStages.add(workingSet.job(index));
  }
  return { changed, hasForwardNeeds };
}

function applyDecision(workingSet: WorkingSet, index: number, decision: ProcessingDecision, now: number, outdatedDeployment: boolean): boolean {
  switch (decision) {
    case 'wait':
      return false;
    case 'enqueue':
      if (outdatedDeployment) workingSet.transition(index, 'failed', { failureReason: OUTDATED_DEPLOYMENT_FAILURE });
      else workingSet.enqueue(index);
      return true;
    case 'actionize':
      workingSet.transition(index, 'manual');
      return true;
    case 'schedule': {
      const startInMs = (workingSet.job(index).startInSeconds ?? 0) * 1000;
      workingSet.transition(index, 'scheduled', { scheduledAt: now + startInMs });
      return true;
    }
    case 'skip':
      workingSet.transition(index, 'skipped');
      return true;
  }
}

/** The `dag: true` composite of a job's needs (§4.5); needs not in the pipeline are left out. */
function needsPrior(workingSet: WorkingSet, job: PipelineJob, latestByName: Map<string, number>): JobStatus {
  const accumulator = new StatusAccumulator();
  for (const need of job.needs ?? []) {
    const index = latestByName.get(need.name);
    if (index !== undefined) accumulator.add(workingSet.job(index));
  }
  return accumulator.status(true) ?? 'success';
}

export function latestIndexByName(workingSet: WorkingSet): Map<string, number> {
  const byName = new Map<string, number>();
  for (const index of workingSet.latestIndices()) byName.set(workingSet.job(index).name, index);
  return byName;
}

/** Latest jobs grouped by stage (ascending), each stage in topological `needs` order. */
function orderForProcessing(
  workingSet: WorkingSet,
  latestByName: Map<string, number>,
): { stages: number[][]; hasForwardNeeds: boolean } {
  const buckets = new Map<number, number[]>();
  for (const index of workingSet.latestIndices()) {
    const stageIdx = workingSet.job(index).stageIdx;
    const bucket = buckets.get(stageIdx);
    if (bucket) bucket.push(index);
    else buckets.set(stageIdx, [index]);
  }
  let hasForwardNeeds = false;
  const stages: number[][] = [];
  for (const stageIdx of [...buckets.keys()].sort((a, b) => a - b)) {
    const sorted = sortByNeeds(workingSet, buckets.get(stageIdx) ?? [], stageIdx, latestByName);
    if (sorted.hasForwardNeeds) hasForwardNeeds = true;
    stages.push(sorted.order);
  }
  return { stages, hasForwardNeeds };
}

function sortByNeeds(
  workingSet: WorkingSet,
  stage: number[],
  stageIdx: number,
  latestByName: Map<string, number>,
): { order: number[]; hasForwardNeeds: boolean } {
  let hasForwardNeeds = false;
  const waitingOn = new Map<number, number>();
  const dependents = new Map<number, number[]>();
  for (const index of stage) {
    for (const need of workingSet.job(index).needs ?? []) {
      const needed = latestByName.get(need.name);
      if (needed === undefined) continue;
      const neededStage = workingSet.job(needed).stageIdx;
      if (neededStage > stageIdx) hasForwardNeeds = true;
      if (neededStage !== stageIdx || needed === index) continue;
      waitingOn.set(index, (waitingOn.get(index) ?? 0) + 1);
      const list = dependents.get(needed);
      if (list) list.push(index);
      else dependents.set(needed, [index]);
    }
  }
  if (waitingOn.size === 0) return { order: stage, hasForwardNeeds };

  const order: number[] = stage.filter((index) => !waitingOn.has(index));
  for (let cursor = 0; cursor < order.length; cursor++) {
    for (const dependent of dependents.get(order[cursor]) ?? []) {
      const remaining = (waitingOn.get(dependent) ?? 0) - 1;
      waitingOn.set(dependent, remaining);
      if (remaining === 0) order.push(dependent);
    }
  }
  // Members of a needs cycle never become ready; they keep waiting in `created`.
  if (order.length < stage.length) {
    const placed = new Set(order);
    for (const index of stage) if (!placed.has(index)) order.push(index);
  }
  return { order, hasForwardNeeds };
}
