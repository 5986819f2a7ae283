/**
 * GitLab's persistent pipeline ref `refs/pipelines/<id>` (its `Ci::PersistentRef`): written when
 * the pipeline is created (creation.ts), checked again when a job is handed out (GitLab's
 * `ensure_persistent_ref` on a job's start: a retried job of a finished pipeline gets it back),
 * removed once the pipeline completes (success, failed, canceled, skipped) or is deleted.
 */
import { isCompletedStatus } from '../../../../pipeline/index.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { RepositoryManager } from '../../../../storage/git/types.ts';
import type { CiTransactions } from '../../../../storage/types-ci-transactions.ts';
import type { TaskHandler } from '../../task-queue.ts';
import type { PipelineFinishedTask } from './finished-tasks.ts';

/** The finish follower that removes the ref (recorded with the finish: a crash loses no removal). */
export const PIPELINE_FINISHED_REF_TASK = 'pipeline.finished.persistent-ref';

export interface PersistentRefsDeps {
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  transactions: CiTransactions;
  logger?: Pick<Logger, 'warn'>;
}

export class PersistentPipelineRefs {
  constructor(private readonly deps: PersistentRefsDeps) {}

  /**
   * The finish follower's handler. Under the pipeline's lock, as GitLab checks `should_delete?`:
   * a retry that brought the pipeline back waits for the removal, and its job's hand-out
   * writes the ref again; a pipeline running again by then keeps its ref.
   */
  removalHandler(): TaskHandler {
    return async (task) => {
      const { pipelineId } = task.payload as PipelineFinishedTask;
      await this.deps.transactions.run(async (stores) => {
        const pipeline = await stores.pipelines.lockForProcessing(pipelineId);
        if (!pipeline || !isCompletedStatus(pipeline.status)) return;
        if (!(await this.deps.repositories.exists(pipeline.project_id))) return;
        await this.deps.repositories.open(pipeline.project_id).deletePipelineRef(pipeline.id);
      });
    };
  }

  /** After a pipeline's deletion; a ref left behind is only a kept commit, so a failure is logged. */
  async removeDeleted(projectId: number, pipelineId: number): Promise<void> {
    try {
      if (await this.deps.repositories.exists(projectId)) await this.deps.repositories.open(projectId).deletePipelineRef(pipelineId);
    } catch (error) {
      this.deps.logger?.warn({ err: error, pipelineId }, 'the deleted pipeline kept its refs/pipelines ref');
    }
  }
}
