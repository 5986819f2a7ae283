import { isCancelableStatus } from '../../../../pipeline/statuses.ts';
import type { JobStatus } from '../../../../pipeline/types.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { RepositoryManager } from '../../../../storage/git/types.ts';
import type { PipelineRecord, PipelinesStore } from '../../../../storage/types-ci.ts';
import type { CiJobsStore, JobRecord, JobType } from '../../../../storage/types-ci-jobs.ts';
import type { CiStores, CiTransactions } from '../../../../storage/types-ci-transactions.ts';
import type { PipelineProcessing, ProcessedEvent } from './processing.ts';

/** A job that has started: one of these that is not `interruptible` keeps its pipeline going. */
const STARTED: ReadonlySet<JobStatus> = new Set(['running', 'success', 'failed']);
/** The newest pipelines of the ref looked at: older ones have long finished or been canceled. */
const CANDIDATES = 100;
const WEEK_MS = 7 * 86_400_000;

/**
 * What auto-cancel did to an older pipeline: `canceled` whole; its interruptible jobs only
 * (`jobs-canceled`, `on_new_commit: interruptible`); `kept` (a job that is not interruptible has
 * started, or nothing was left to cancel); `disabled` (`on_new_commit: none`).
 */
export type AutoCancelOutcome = 'canceled' | 'jobs-canceled' | 'kept' | 'disabled';

export interface RedundantPipelinesDeps {
  pipelines: Pick<PipelinesStore, 'list' | 'listBySourceJobs'>;
  jobs: Pick<CiJobsStore, 'list'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  transactions: CiTransactions;
  processing: Pick<PipelineProcessing, 'applyIn' | 'notify'>;
  logger: Logger;
}

/**
 * GitLab's auto-cancel of redundant pipelines (`cancel_pending_pipelines`, on by default): a
 * new pipeline cancels the older ones of its ref that can still run, for another commit than
 * its own and than the ref's head, created in the last week, not child pipelines (they go with
 * their parent), each as its own `workflow:auto_cancel:on_new_commit` says: `conservative` (the
 * default, GitLab's rule since 12.3) cancels it while every job of it that has started is
 * `interruptible`; `interruptible` cancels its interruptible jobs (and its child pipelines')
 * and lets the others run; `none` keeps it. The rule is checked and the cancel applied in one
 * transaction holding the pipeline's processing lock, so a job that starts meanwhile is seen.
 */
export class RedundantPipelines {
  constructor(private readonly deps: RedundantPipelinesDeps) {}

  /** After a pipeline is created: cancels what it makes redundant; a failure is logged, never the creation's. */
  async afterCreated(pipeline: PipelineRecord): Promise<void> {
    try {
      await this.cancelOlderThan(pipeline);
    } catch (error) {
      this.deps.logger.warn({ err: error, pipeline: pipeline.id }, 'could not cancel redundant pipelines');
    }
  }

  /** Cancels what `pipeline` makes redundant; answers the ids canceled. */
  async cancelOlderThan(pipeline: PipelineRecord): Promise<number[]> {
    if (pipeline.source === 'parent_pipeline') return [];
    const { items } = await this.deps.pipelines.list({ projectId: pipeline.project_id, ref: pipeline.ref, sort: 'desc' }, { offset: 0, limit: CANDIDATES });
    const createdAfter = Date.parse(pipeline.created_at) - WEEK_MS;
    const candidates = items.filter(
      (each) => each.id < pipeline.id && each.tag === pipeline.tag && isCancelableStatus(each.status) && each.source !== 'parent_pipeline'
        && each.sha !== pipeline.sha && Date.parse(each.created_at) >= createdAfter,
    );
    if (candidates.length === 0) return [];
    const head = await this.refHead(pipeline);
    const older = candidates.filter((each) => each.sha !== head).reverse();
    const canceled: number[] = [];
    for (const candidate of older) {
      const outcome = await this.cancelAsConfigured(candidate.id);
      if (outcome === 'canceled' || outcome === 'jobs-canceled') canceled.push(candidate.id);
    }
    if (canceled.length > 0) this.deps.logger.info({ pipeline: pipeline.id, canceled }, 'canceled redundant pipelines');
    return canceled;
  }

  /** Applies the pipeline's own `on_new_commit` strategy to it; answers what it did. */
  async cancelAsConfigured(pipelineId: number): Promise<AutoCancelOutcome> {
    const { outcome, processed } = await this.deps.transactions.run(async (stores): Promise<{ outcome: AutoCancelOutcome; processed?: ProcessedEvent }> => {
      const locked = await stores.pipelines.lockForProcessing(pipelineId);
      if (!locked || !isCancelableStatus(locked.status)) return { outcome: 'kept' };
      switch (locked.auto_cancel_on_new_commit) {
        case 'none':
          return { outcome: 'disabled' };
        case 'interruptible': {
          const jobIds = (await latestJobs(stores, pipelineId, ['build', 'bridge'])).filter(cancelableAndInterruptible).map((job) => job.id);
          if (jobIds.length === 0) return { outcome: 'kept' };
          return { outcome: 'jobs-canceled', processed: await this.deps.processing.applyIn(stores, pipelineId, { type: 'cancel-jobs', jobIds }, { userId: null }) };
        }
        case 'conservative':
          if ((await latestJobs(stores, pipelineId, ['build'])).some(startedAndUninterruptible)) return { outcome: 'kept' };
          return { outcome: 'canceled', processed: await this.deps.processing.applyIn(stores, pipelineId, { type: 'cancel-pipeline' }, { userId: null }) };
      }
    });
    if (processed) this.deps.processing.notify(processed);
    if (outcome === 'jobs-canceled') await this.cancelInterruptibleInChildren(pipelineId);
    return outcome;
  }

  /** Safe cancellation reaches the child pipelines: their interruptible jobs are canceled too. */
  private async cancelInterruptibleInChildren(pipelineId: number): Promise<void> {
    const { items: bridges } = await this.deps.jobs.list({ pipelineId, types: ['bridge'], includeRetried: false }, { offset: 0, limit: 10_000 });
    if (bridges.length === 0) return;
    for (const child of await this.deps.pipelines.listBySourceJobs(bridges.map((bridge) => bridge.id))) {
      const processed = await this.deps.transactions.run(async (stores) => {
        const locked = await stores.pipelines.lockForProcessing(child.id);
        if (!locked || !isCancelableStatus(locked.status)) return null;
        const jobIds = (await latestJobs(stores, child.id, ['build', 'bridge'])).filter(cancelableAndInterruptible).map((job) => job.id);
        return jobIds.length === 0 ? null : this.deps.processing.applyIn(stores, child.id, { type: 'cancel-jobs', jobIds }, { userId: null });
      });
      if (processed) this.deps.processing.notify(processed);
      await this.cancelInterruptibleInChildren(child.id);
    }
  }

  private async refHead(pipeline: PipelineRecord): Promise<string | null> {
    if (!(await this.deps.repositories.exists(pipeline.project_id))) return null;
    const repository = this.deps.repositories.open(pipeline.project_id);
    return repository.resolveCommit(`refs/${pipeline.tag ? 'tags' : 'heads'}/${pipeline.ref}`).catch(() => null);
  }
}

function startedAndUninterruptible(job: JobRecord): boolean {
  return STARTED.has(job.status) && job.definition?.interruptible !== true;
}

async function latestJobs(stores: CiStores, pipelineId: number, types: JobType[]): Promise<JobRecord[]> {
  return (await stores.jobs.list({ pipelineId, types, includeRetried: false }, { offset: 0, limit: 10_000 })).items;
}

function cancelableAndInterruptible(job: JobRecord): boolean {
  return isCancelableStatus(job.status) && job.definition?.interruptible === true;
}
