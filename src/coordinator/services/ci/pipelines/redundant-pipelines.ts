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

/** Child pipelines below one pipeline, levels followed at the most (GitLab nests two). */
const MAX_CHILD_DEPTH = 5;

/**
 * GitLab's auto-cancel of redundant pipelines (`cancel_pending_pipelines`, on by default): a
 * new pipeline cancels the older ones of its ref that can still run, for another commit than
 * its own and than the ref's head, created in the last week, and their child pipelines: each
 * pipeline as its own `workflow:auto_cancel:on_new_commit` says, a child by its own file's
 * setting whatever its parent's (GitLab iterates the hierarchy and cancels none of it by
 * cascade): `conservative` (the default, GitLab's rule since 12.3) cancels it while every job of
 * it that has started is `interruptible`; `interruptible` cancels its interruptible jobs and
 * lets the others run; `none` keeps it. Each rule is checked and its cancel applied in one
 * transaction holding that pipeline's processing lock, so a job that starts meanwhile is seen.
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

  /**
   * Cancels what `pipeline` makes redundant; answers the ids canceled. Child pipelines are
   * candidates of their own (a finished parent's running child too), older when their root is.
   */
  async cancelOlderThan(pipeline: PipelineRecord): Promise<number[]> {
    if (pipeline.source === 'parent_pipeline') return [];
    const { items } = await this.deps.pipelines.list({ projectId: pipeline.project_id, ref: pipeline.ref, sort: 'desc' }, { offset: 0, limit: CANDIDATES });
    const createdAfter = Date.parse(pipeline.created_at) - WEEK_MS;
    const byId = new Map(items.map((each) => [each.id, each]));
    const candidates = items.filter(
      (each) => each.id !== pipeline.id && rootOf(each, byId).id < pipeline.id && each.tag === pipeline.tag && isCancelableStatus(each.status)
        && each.sha !== pipeline.sha && Date.parse(each.created_at) >= createdAfter,
    );
    if (candidates.length === 0) return [];
    const head = await this.refHead(pipeline);
    const older = candidates.filter((each) => each.sha !== head).reverse();
    const canceled: number[] = [];
    for (const candidate of older) {
      const outcome = await this.applyOwnStrategy(candidate.id);
      if (outcome === 'canceled' || outcome === 'jobs-canceled') canceled.push(candidate.id);
    }
    if (canceled.length > 0) this.deps.logger.info({ pipeline: pipeline.id, canceled }, 'canceled redundant pipelines');
    return canceled;
  }

  /**
   * Applies the pipeline's own `on_new_commit` strategy to it, then each child pipeline's to that
   * child (`runner exec`'s superseded run); answers what it did to the pipeline.
   */
  async cancelAsConfigured(pipelineId: number): Promise<AutoCancelOutcome> {
    const outcome = await this.applyOwnStrategy(pipelineId);
    for (const child of await this.descendants(pipelineId)) await this.applyOwnStrategy(child);
    return outcome;
  }

  private async applyOwnStrategy(pipelineId: number): Promise<AutoCancelOutcome> {
    const { outcome, processed } = await this.deps.transactions.run(async (stores): Promise<{ outcome: AutoCancelOutcome; processed?: ProcessedEvent }> => {
      const locked = await stores.pipelines.lockForProcessing(pipelineId);
      if (!locked || !isCancelableStatus(locked.status)) return { outcome: 'kept' };
      if (locked.auto_cancel_on_new_commit === 'none') return { outcome: 'disabled' };
      const latest = await latestJobs(stores, pipelineId, ['build', 'bridge']);
      const conservative = locked.auto_cancel_on_new_commit === 'conservative';
      // Conservative: a build that started and may not be interrupted keeps the whole pipeline (bridges do not count).
      if (conservative && latest.some((job) => job.type === 'build' && startedAndUninterruptible(job))) return { outcome: 'kept' };
      // Its jobs rather than the pipeline: canceling a pipeline would cascade to its children, each of which decides for itself here.
      const jobIds = latest.filter((job) => isCancelableStatus(job.status) && (conservative || job.definition?.interruptible === true)).map((job) => job.id);
      if (jobIds.length === 0) return { outcome: 'kept' };
      const event = { type: 'cancel-jobs', jobIds } as const;
      return { outcome: conservative ? 'canceled' : 'jobs-canceled', processed: await this.deps.processing.applyIn(stores, pipelineId, event, { userId: null }) };
    });
    if (processed) this.deps.processing.notify(processed);
    return outcome;
  }

  /** The pipeline's child pipelines (created by its bridges), theirs, and so on, parents first. */
  private async descendants(pipelineId: number): Promise<number[]> {
    const found: number[] = [];
    let level = [pipelineId];
    for (let depth = 0; depth < MAX_CHILD_DEPTH && level.length > 0; depth += 1) {
      const next: number[] = [];
      for (const parent of level) {
        const { items: bridges } = await this.deps.jobs.list({ pipelineId: parent, types: ['bridge'], includeRetried: true }, { offset: 0, limit: 10_000 });
        if (bridges.length === 0) continue;
        const children = await this.deps.pipelines.listBySourceJobs(bridges.map((bridge) => bridge.id));
        next.push(...children.filter((child) => child.source === 'parent_pipeline' && isCancelableStatus(child.status)).map((child) => child.id));
      }
      found.push(...next);
      level = next;
    }
    return found;
  }

  private async refHead(pipeline: PipelineRecord): Promise<string | null> {
    if (!(await this.deps.repositories.exists(pipeline.project_id))) return null;
    const repository = this.deps.repositories.open(pipeline.project_id);
    return repository.resolveCommit(`refs/${pipeline.tag ? 'tags' : 'heads'}/${pipeline.ref}`).catch(() => null);
  }
}

/** The top of a child pipeline's chain of parents among `known` (the ref's newest pipelines); itself when it has none there. */
function rootOf(pipeline: PipelineRecord, known: ReadonlyMap<number, PipelineRecord>): PipelineRecord {
  let current = pipeline;
  for (let depth = 0; depth < MAX_CHILD_DEPTH && current.source === 'parent_pipeline' && current.parent_pipeline_id !== null; depth += 1) {
    const parent = known.get(current.parent_pipeline_id);
    if (!parent) break;
    current = parent;
  }
  return current;
}

function startedAndUninterruptible(job: JobRecord): boolean {
  return STARTED.has(job.status) && job.definition?.interruptible !== true;
}

async function latestJobs(stores: CiStores, pipelineId: number, types: JobType[]): Promise<JobRecord[]> {
  return (await stores.jobs.list({ pipelineId, types, includeRetried: false }, { offset: 0, limit: 10_000 })).items;
}
