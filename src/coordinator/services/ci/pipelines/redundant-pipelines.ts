import { isCancelableStatus } from '../../../../pipeline/statuses.ts';
import type { JobStatus } from '../../../../pipeline/types.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { RepositoryManager } from '../../../../storage/git/types.ts';
import type { PipelineRecord, PipelinesStore } from '../../../../storage/types-ci.ts';
import type { CiJobsStore, JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { CiTransactions } from '../../../../storage/types-ci-transactions.ts';
import type { PipelineProcessing } from './processing.ts';

/** A job that has started: one of these that is not `interruptible` keeps its pipeline going. */
const STARTED: ReadonlySet<JobStatus> = new Set(['running', 'success', 'failed']);
/** The newest pipelines of the ref looked at: older ones have long finished or been canceled. */
const CANDIDATES = 100;
const WEEK_MS = 7 * 86_400_000;

export interface RedundantPipelinesDeps {
  pipelines: Pick<PipelinesStore, 'list'>;
  jobs: Pick<CiJobsStore, 'list'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  transactions: CiTransactions;
  processing: Pick<PipelineProcessing, 'applyIn' | 'notify'>;
  logger: Logger;
}

/**
 * GitLab's auto-cancel of redundant pipelines (`cancel_pending_pipelines`, on by default): a
 * new pipeline cancels the older ones of its ref that can still run, for another commit than
 * its own and than the ref's head, created in the last week, not child pipelines, and only while
 * every job of theirs that has started is `interruptible` (GitLab's conservative rule, since
 * 12.3). The rule is checked and the cancel applied in one transaction holding the pipeline's
 * processing lock, so a job that starts meanwhile is seen.
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
    for (const candidate of older) if (await this.cancelIfInterruptible(candidate.id)) canceled.push(candidate.id);
    if (canceled.length > 0) this.deps.logger.info({ pipeline: pipeline.id, canceled }, 'canceled redundant pipelines');
    return canceled;
  }

  /** Cancels the pipeline when every job of it that has started is `interruptible`; answers whether it did. */
  async cancelIfInterruptible(pipelineId: number): Promise<boolean> {
    const processed = await this.deps.transactions.run(async (stores) => {
      const locked = await stores.pipelines.lockForProcessing(pipelineId);
      if (!locked || !isCancelableStatus(locked.status)) return null;
      const { items } = await stores.jobs.list({ pipelineId, types: ['build'], includeRetried: false }, { offset: 0, limit: 10_000 });
      if (items.some(startedAndUninterruptible)) return null;
      return this.deps.processing.applyIn(stores, pipelineId, { type: 'cancel-pipeline' }, { userId: null });
    });
    if (processed) this.deps.processing.notify(processed);
    return processed !== null;
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
