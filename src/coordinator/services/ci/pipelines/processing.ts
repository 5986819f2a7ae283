import { failedJobCancelsPipeline, handleEvent, isCompletedStatus, type EventResult, type PipelineEvent, type PipelineJob } from '../../../../pipeline/index.ts';
import { GantryError } from '../../../../shared/errors.ts';
import { isRetryableConflict } from '../../../../storage/errors.ts';
import { StaleJobError, type JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { PipelineChanges, PipelineRecord } from '../../../../storage/types-ci.ts';
import type { CiStores, CiTransactions } from '../../../../storage/types-ci-transactions.ts';
import type { TaskHandler } from '../../task-queue.ts';
import { ENVIRONMENT_CREATION_FAILURE, followJobMoves, isEnvironmentRefused } from './deployments.ts';
import { recordDownstreamWork } from './downstream-tasks.ts';
import { recordFinishedFollowers } from './finished-tasks.ts';
import { outdatedDeploymentJobIds } from './forward-deployments.ts';
import { averageCoverage, recordCanceledJobCoverage } from './pipeline-coverage.ts';
import { recordResourceAssignments } from './resource-groups.ts';

/** Task kind of a delayed job's timer (payload: ScheduledTimeTask). */
export const SCHEDULED_TIME_TASK = 'job.scheduled-time';

export interface ScheduledTimeTask {
  pipelineId: number;
  jobId: number;
}

/** What one event did, after its transaction committed. */
export interface ProcessedEvent {
  pipeline: PipelineRecord;
  /** The state rules' answer; job ids in it are real ids (retries mapped). */
  result: EventResult;
  /** The job to show the caller (the updated job, or the new one a retry created). */
  resultJobId?: number;
  /** Ids of jobs this event moved to `pending` (the job queue wakes runners for them). */
  enqueuedJobIds: number[];
  /** Ids of jobs this event created (retries). */
  createdJobIds: number[];
  /** A new pipeline's first processing: its jobs as inserted, before it (job hooks send their `created`). */
  insertedJobs?: ReadonlyArray<Pick<JobRecord, 'id' | 'status'>>;
  /**
   * Tasks the event recorded: downstream pipelines (bridges to run, depend statuses, children
   * to cancel), a finish's followers, successful deployments' merge request links, resource
   * groups' assignments and the coverage scans of jobs canceled while they ran.
   */
  downstreamTasks?: number;
}

export interface PipelineProcessingDeps {
  transactions: CiTransactions;
  /** Epoch milliseconds. */
  clock?: () => number;
  /** Called once per committed event, in commit order (queue wake-ups, downstream bridges). */
  afterCommit?: (processed: ProcessedEvent) => void;
  /** Wakes the task worker after a commit that recorded downstream-pipeline or follower tasks. */
  wakeTasks?: () => void;
  /** Task kinds recorded, in the finishing transaction, for each pipeline that finishes (finished-tasks.ts). */
  finishedFollowers?: readonly string[];
}

const MAX_ATTEMPTS = 8;

/**
 * Applies events to persisted pipelines: reads the pipeline and its jobs under the
 * pipeline's lock, runs the pure state rules (src/pipeline) and writes their changes, the
 * pipeline's and stages' statuses and any delayed-job timer in the same transaction as the
 * event, so no state is lost between them; deployments follow their jobs in it too
 * (deployments.ts), a job about to be enqueued whose deployment is outdated fails instead
 * (forward-deployments.ts), and so are the tasks of what follows a finish (finished-tasks.ts)
 * and the coverage scans of jobs canceled while they ran (pipeline-coverage.ts).
 * Cost: one read of the pipeline's jobs, of their coverages and of its deployments (and, while
 * a job with a deployment waits to be enqueued, of the project's forward deployment settings
 * and of its environments' last deployments; when a cancel ends running jobs, of those jobs),
 * and writes proportional to what changed (one task row per follower when the pipeline
 * finishes, one per canceled running job with a `coverage` regex).
 */
export class PipelineProcessing {
  private readonly clock: () => number;
  private readonly listeners = new Set<(processed: ProcessedEvent) => void>();

  constructor(private readonly deps: PipelineProcessingDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  /**
   * Runs the event in its own transaction, again when a job moved meanwhile or the database asks;
   * `alongside` writes what goes with the event in that same transaction (each time it runs).
   */
  async apply(
    pipelineId: number, event: PipelineEvent, actor: { userId?: number | null } = {}, alongside?: (stores: CiStores, processed: ProcessedEvent) => Promise<void>,
  ): Promise<ProcessedEvent> {
    const processed = await this.runRetrying(async (stores) => {
      const outcome = await this.applyIn(stores, pipelineId, event, actor);
      await alongside?.(stores, outcome);
      return outcome;
    });
    this.notify(processed);
    return processed;
  }

  /**
   * `apply` of an event that `choose` picks inside the transaction, under whatever it locks
   * there (a resource group's assignment); undefined, with nothing written, when it picks none.
   */
  async applyChosen(choose: (stores: CiStores) => Promise<{ pipelineId: number; event: PipelineEvent } | undefined>): Promise<ProcessedEvent | undefined> {
    const processed = await this.runRetrying(async (stores) => {
      const chosen = await choose(stores);
      return chosen && (await this.applyIn(stores, chosen.pipelineId, chosen.event));
    });
    if (processed) this.notify(processed);
    return processed;
  }

  /** `work` in its own transaction, again when a job moved meanwhile or the database asks. */
  private async runRetrying<T>(work: (stores: CiStores) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.deps.transactions.run(work);
      } catch (error) {
        const retry = error instanceof StaleJobError || isRetryableConflict(error);
        if (!retry || attempt >= MAX_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
      }
    }
  }

  /**
   * The event inside the caller's transaction (pipeline creation processes the new pipeline
   * in the transaction that inserts it). The caller reports the outcome (`notify`) after commit.
   */
  async applyIn(stores: CiStores, pipelineId: number, event: PipelineEvent, actor: { userId?: number | null } = {}): Promise<ProcessedEvent> {
    let processed = await this.applyOnce(stores, pipelineId, event, actor);
    if (processed.createdJobIds.length > 0) {
      // A retry's new job whose environment GitLab would refuse fails at once instead of running.
      for (const job of await stores.jobs.findByIds(processed.createdJobIds)) {
        if (!isEnvironmentRefused(job)) continue;
        const refusal: PipelineEvent = { type: 'job-status', jobId: job.id, status: 'failed', failureReason: ENVIRONMENT_CREATION_FAILURE };
        processed = withFollowUp(processed, await this.applyOnce(stores, pipelineId, refusal, actor));
      }
    }
    // `workflow:auto_cancel:on_job_failure: all`: GitLab cancels the pipeline (children included) after such a failure.
    if (processed.pipeline.auto_cancel_on_job_failure === 'all' && event.type !== 'cancel-pipeline' && failedJobCancelsPipeline(processed.result)) {
      processed = withFollowUp(processed, await this.applyOnce(stores, pipelineId, { type: 'cancel-pipeline' }, actor));
    }
    return processed;
  }

  private async applyOnce(stores: CiStores, pipelineId: number, event: PipelineEvent, actor: { userId?: number | null }): Promise<ProcessedEvent> {
    const pipeline = await stores.pipelines.lockForProcessing(pipelineId);
    if (!pipeline) throw new GantryError('GANTRY_E_PIPELINE_NOT_FOUND');
    const nowMs = this.clock();
    const now = new Date(nowMs).toISOString();
    const before = await stores.jobs.loadPipelineJobs(pipelineId);
    const deployments = await stores.deployments.listForPipeline(pipelineId);
    const outdated = await outdatedDeploymentJobIds(stores, pipeline.project_id, deployments, before);
    const result = handleEvent({ status: pipeline.status, jobs: before }, event, { now: nowMs, outdatedDeploymentJobIds: outdated });
    const applied = await stores.jobs.applyChanges(pipelineId, result.changes, { now, userId: actor.userId });
    const realId = (id: number): number => applied.createdIds.get(id) ?? id;
    // A played action runs as the user who played it (retries' new jobs already are theirs).
    if (event.type === 'play-job' && result.resultJob && actor.userId != null) await stores.jobs.update(realId(result.resultJob.id), { user_id: actor.userId });

    await stores.stages.updateStatuses(pipelineId, result.stages.map((stage) => ({ name: stage.name, status: stage.status })));
    const coverage = averageCoverage(await stores.jobs.latestCoverages(pipelineId));
    const updated = (await stores.pipelines.update(pipelineId, pipelineChanges(pipeline, result, coverage, now))) ?? pipeline;
    await this.scheduleTimers(stores, pipelineId, result, realId, now);

    const enqueuedJobIds: number[] = [];
    const createdJobIds: number[] = [];
    const succeededJobIds: number[] = [];
    for (const change of result.changes) {
      if (change.kind === 'create') createdJobIds.push(realId(change.job.id));
      const status = change.kind === 'create' ? change.job.status : change.patch.status;
      const jobId = realId(change.kind === 'create' ? change.job.id : change.jobId);
      if (status === 'pending') enqueuedJobIds.push(jobId);
      if (status === 'success') succeededJobIds.push(jobId);
    }
    const jobs = result.jobs.map((job) => withRealId(job, realId));
    const deploymentTasks = await followJobMoves(stores, deployments, { jobs, createdJobIds, succeededJobIds }, now);
    const downstreamTasks =
      deploymentTasks +
      (await recordDownstreamWork(stores, event, updated, pipeline.status, enqueuedJobIds, now)) +
      (await recordFinishedFollowers(stores, this.deps.finishedFollowers ?? [], updated, pipeline.status, now)) +
      (await recordResourceAssignments(stores, pipeline.project_id, result.changes, result.jobs, now)) +
      (await recordCanceledJobCoverage(stores, event, result.changes, now));
    return {
      pipeline: updated,
      result: { ...result, jobs, ...(result.resultJob ? { resultJob: withRealId(result.resultJob, realId) } : {}) },
      ...(result.resultJob ? { resultJobId: realId(result.resultJob.id) } : {}),
      enqueuedJobIds,
      createdJobIds,
      downstreamTasks,
    };
  }

  /**
   * Another in-process listener of committed events, after `afterCommit` (`runner exec`
   * follows its pipeline with it instead of polling); answers its removal. A listener that
   * throws does not stop the others.
   */
  onCommitted(listener: (processed: ProcessedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** For callers of `applyIn`: report a committed outcome to the listeners. */
  notify(processed: ProcessedEvent): void {
    this.deps.afterCommit?.(processed);
    for (const listener of [...this.listeners]) {
      try {
        listener(processed);
      } catch {
        // the listener's own failure; the event is committed either way
      }
    }
    if ((processed.downstreamTasks ?? 0) > 0) this.deps.wakeTasks?.();
  }

  /** A delayed job that became `scheduled` gets a durable timer task at its time. */
  private async scheduleTimers(stores: CiStores, pipelineId: number, result: EventResult, realId: (id: number) => number, now: string): Promise<void> {
    for (const change of result.changes) {
      const job = change.kind === 'create' ? change.job : undefined;
      const scheduledAt = change.kind === 'create' ? job?.scheduledAt : change.patch.scheduledAt;
      const status = change.kind === 'create' ? change.job.status : change.patch.status;
      if (status !== 'scheduled' || scheduledAt === null || scheduledAt === undefined) continue;
      const jobId = realId(change.kind === 'create' ? change.job.id : change.jobId);
      const payload: ScheduledTimeTask = { pipelineId, jobId };
      await stores.tasks.enqueue({ kind: SCHEDULED_TIME_TASK, payload, runAt: new Date(scheduledAt).toISOString(), dedupeKey: `${SCHEDULED_TIME_TASK}:${jobId}` }, now);
    }
  }
}

function withRealId(job: PipelineJob, realId: (id: number) => number): PipelineJob {
  const id = realId(job.id);
  return id === job.id ? job : { ...job, id };
}

/** Status, warnings, coverage and the run's timestamps (§5): started when first running, finished when completed. */
function pipelineChanges(pipeline: PipelineRecord, result: EventResult, coverage: string | null, now: string): PipelineChanges {
  const changes: PipelineChanges = {};
  if (coverage !== pipeline.coverage) changes.coverage = coverage;
  if (result.pipelineStatusChanged) changes.status = result.pipelineStatus;
  if (result.hasWarnings !== pipeline.has_warnings) changes.has_warnings = result.hasWarnings;
  if (result.pipelineStatusChanged && result.pipelineStatus === 'running' && !pipeline.started_at) changes.started_at = now;
  if (result.pipelineStatusChanged && isCompletedStatus(result.pipelineStatus)) {
    changes.finished_at = now;
    const started = pipeline.started_at ?? changes.started_at;
    changes.duration = started ? Math.max(0, Math.round((Date.parse(now) - Date.parse(started)) / 1000)) : null;
  } else if (result.pipelineStatusChanged && pipeline.finished_at) {
    // Retried back to life: no longer finished.
    changes.finished_at = null;
    changes.duration = null;
  }
  if (Object.keys(changes).length > 0) changes.updated_at = now;
  return changes;
}

/** The task handler of delayed-job timers: enqueues the job if it is still scheduled and due. */
export function scheduledTimeHandler(processing: PipelineProcessing): TaskHandler {
  return async (task) => {
    const { pipelineId, jobId } = task.payload as ScheduledTimeTask;
    try {
      await processing.apply(pipelineId, { type: 'scheduled-time-reached', jobId });
    } catch (error) {
      // The pipeline or job was deleted meanwhile: nothing left to do.
      if (error instanceof GantryError && (error.code === 'GANTRY_E_PIPELINE_NOT_FOUND' || error.code === 'GANTRY_E_JOB_NOT_FOUND')) return;
      throw error;
    }
  };
}

/** The outcome of an event and of one that followed it in the same transaction, as one. */
function withFollowUp(processed: ProcessedEvent, followUp: ProcessedEvent): ProcessedEvent {
  return {
    ...processed,
    pipeline: followUp.pipeline,
    result: {
      ...followUp.result,
      changes: [...processed.result.changes, ...followUp.result.changes],
      pipelineStatusChanged: processed.result.pipelineStatusChanged || followUp.result.pipelineStatusChanged,
      ...(processed.result.resultJob ? { resultJob: followUp.result.jobs.find((item) => item.id === processed.resultJobId) ?? processed.result.resultJob } : {}),
    },
    enqueuedJobIds: [...processed.enqueuedJobIds, ...followUp.enqueuedJobIds],
    downstreamTasks: (processed.downstreamTasks ?? 0) + (followUp.downstreamTasks ?? 0),
  };
}
