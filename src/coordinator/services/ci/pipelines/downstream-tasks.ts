/**
 * The durable tasks of downstream pipelines, recorded by processing in the transaction of the
 * event that calls for them, so a crash right after the commit loses none:
 * - a bridge job turned `pending` → create its downstream pipeline;
 * - a downstream pipeline finished, or runs again after it had finished (a retry) → a
 *   `strategy: depend` bridge takes its status;
 * - a pipeline was canceled → its child pipelines are canceled too (GitLab cascades to
 *   children, not to multi-project pipelines).
 */
import { isCompletedStatus, type PipelineEvent } from '../../../../pipeline/index.ts';
import type { PipelineRecord } from '../../../../storage/types-ci.ts';
import type { CiStores } from '../../../../storage/types-ci-transactions.ts';

/** Payload: DownstreamPipelineTask. */
export const DOWNSTREAM_PIPELINE_TASK = 'pipeline.create-downstream';
/** Payload: BridgeStatusTask. */
export const BRIDGE_STATUS_TASK = 'pipeline.bridge-status';
/** Payload: CancelChildrenTask. */
export const CANCEL_CHILDREN_TASK = 'pipeline.cancel-children';

export interface DownstreamPipelineTask {
  pipelineId: number;
  bridgeId: number;
}

export interface BridgeStatusTask {
  /** The downstream pipeline whose status its bridge may mirror. */
  pipelineId: number;
}

export interface CancelChildrenTask {
  pipelineId: number;
}

/** Creating a downstream pipeline may fail for a while (git, the database): retried with back-off, then the bridge fails. */
export const DOWNSTREAM_MAX_ATTEMPTS = 5;

/**
 * Records the tasks one processed event calls for, in the caller's transaction; answers how
 * many were recorded (the caller wakes the task worker after the commit).
 */
export async function recordDownstreamWork(
  stores: CiStores,
  event: PipelineEvent,
  pipeline: PipelineRecord,
  previousStatus: PipelineRecord['status'],
  enqueuedJobIds: readonly number[],
  now: string,
): Promise<number> {
  let recorded = 0;
  if (enqueuedJobIds.length > 0) {
    // The pipeline's pending bridges (usually none), not every job the event enqueued.
    const enqueued = new Set(enqueuedJobIds);
    const { items } = await stores.jobs.list({ pipelineId: pipeline.id, types: ['bridge'], statuses: ['pending'] }, { offset: 0, limit: 1000 });
    for (const bridge of items) {
      // A bridge without `trigger:` (none the compiler makes) waits, as in GitLab.
      if (!enqueued.has(bridge.id) || !bridge.definition?.trigger) continue;
      const payload: DownstreamPipelineTask = { pipelineId: pipeline.id, bridgeId: bridge.id };
      await stores.tasks.enqueue({ kind: DOWNSTREAM_PIPELINE_TASK, payload, maxAttempts: DOWNSTREAM_MAX_ATTEMPTS, dedupeKey: `${DOWNSTREAM_PIPELINE_TASK}:${bridge.id}` }, now);
      recorded++;
    }
  }
  const finishedOrReopened = isCompletedStatus(pipeline.status) || isCompletedStatus(previousStatus);
  if (pipeline.status !== previousStatus && pipeline.source_job_id !== null && finishedOrReopened) {
    const payload: BridgeStatusTask = { pipelineId: pipeline.id };
    await stores.tasks.enqueue({ kind: BRIDGE_STATUS_TASK, payload, maxAttempts: 10, dedupeKey: `${BRIDGE_STATUS_TASK}:${pipeline.id}` }, now);
    recorded++;
  }
  if (event.type === 'cancel-pipeline' && (await hasBridges(stores, pipeline.id))) {
    const payload: CancelChildrenTask = { pipelineId: pipeline.id };
    await stores.tasks.enqueue({ kind: CANCEL_CHILDREN_TASK, payload, maxAttempts: 10, dedupeKey: `${CANCEL_CHILDREN_TASK}:${pipeline.id}` }, now);
    recorded++;
  }
  return recorded;
}

async function hasBridges(stores: CiStores, pipelineId: number): Promise<boolean> {
  const { total } = await stores.jobs.list({ pipelineId, types: ['bridge'], includeRetried: true }, { offset: 0, limit: 1 });
  return total > 0;
}
