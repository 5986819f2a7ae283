/**
 * What follows a pipeline's finish (an automatic merge, a pipelines-email message) is recorded
 * by processing as durable tasks in the transaction that finishes the pipeline, so a
 * coordinator that dies right after the commit loses none of it. Each follower has its own
 * task kind: a retry of one never repeats another (a second mail).
 */
import { isCompletedStatus } from '../../../../pipeline/index.ts';
import type { PipelineRecord, PipelinesStore } from '../../../../storage/types-ci.ts';
import type { CiStores } from '../../../../storage/types-ci-transactions.ts';
import type { TaskHandler } from '../../task-queue.ts';

/** Payload of every follower's task: the pipeline and the finish it follows. */
export interface PipelineFinishedTask {
  pipelineId: number;
  status: PipelineRecord['status'];
  finishedAt: string | null;
}

/** Task kinds the coordinator runs after a finish: the automatic merge, the pipeline email. */
export const PIPELINE_FINISHED_AUTO_MERGE_TASK = 'pipeline.finished.auto-merge';
export const PIPELINE_FINISHED_EMAIL_TASK = 'pipeline.finished.email';

/**
 * In the processing transaction: a pipeline that just finished (success, failed, canceled,
 * skipped) gets one task per follower kind; answers how many were recorded.
 */
export async function recordFinishedFollowers(
  stores: CiStores,
  followerKinds: readonly string[],
  pipeline: PipelineRecord,
  previousStatus: PipelineRecord['status'],
  now: string,
): Promise<number> {
  if (followerKinds.length === 0 || pipeline.status === previousStatus || !isCompletedStatus(pipeline.status)) return 0;
  const payload: PipelineFinishedTask = { pipelineId: pipeline.id, status: pipeline.status, finishedAt: pipeline.finished_at };
  for (const kind of followerKinds) {
    await stores.tasks.enqueue({ kind, payload, maxAttempts: 10, dedupeKey: `${kind}:${pipeline.id}:${pipeline.status}:${pipeline.finished_at ?? ''}` }, now);
  }
  return followerKinds.length;
}

/**
 * The handler of a follower's task: the follower sees the pipeline as it finished (status and
 * finish time from the task; a retry may have moved it on since). A deleted pipeline is skipped.
 */
export function pipelineFinishedHandler(pipelines: Pick<PipelinesStore, 'findById'>, follow: (pipeline: PipelineRecord) => Promise<void>): TaskHandler {
  return async (task) => {
    const { pipelineId, status, finishedAt } = task.payload as PipelineFinishedTask;
    const pipeline = await pipelines.findById(pipelineId);
    if (!pipeline) return;
    await follow({ ...pipeline, status, finished_at: finishedAt });
  };
}
