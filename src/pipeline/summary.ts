import { StatusAccumulator } from './composite.ts';
import type { JobStatus, PipelineJob, PipelineStatus, StageSummary } from './types.ts';

/**
 * The pipeline state machine's answer to a new composite (§5.4, `set_status`): `created`
 * (and no jobs at all) change nothing; `enqueue` leads to `pending`, except from a finished
 * (or canceling) or running pipeline, which becomes `running` (so a retried pipeline shows `running` while
 * its jobs are only pending); every other composite is taken as it is.
 */
export function nextPipelineStatus(current: PipelineStatus, composite: JobStatus | null): PipelineStatus {
  if (composite === null || composite === 'created') return current;
  if (composite === 'pending') {
    const finishedOrRunning =
      current === 'success' || current === 'failed' || current === 'canceled' || current === 'canceling' || current === 'running';
    return finishedOrRunning ? 'running' : 'pending';
  }
  return composite;
}

export interface PipelineSummary {
  /** Composite of the latest jobs, null when there are none. */
  readonly composite: JobStatus | null;
  readonly status: PipelineStatus;
  readonly hasWarnings: boolean;
  readonly stages: readonly StageSummary[];
}

/** Pipeline and stage statuses (§5.1, §5.3) over the latest jobs, in one pass. */
export function summarizePipeline(
  jobs: readonly PipelineJob[],
  currentStatus: PipelineStatus,
): PipelineSummary {
  const pipeline = new StatusAccumulator();
  const stages = new Map<number, { name: string; accumulator: StatusAccumulator }>();
  for (const job of jobs) {
    if (job.retried) continue;
    pipeline.add(job);
    let stage = stages.get(job.stageIdx);
    if (!stage) {
      stage = { name: job.stage, accumulator: new StatusAccumulator() };
      stages.set(job.stageIdx, stage);
    }
    stage.accumulator.add(job);
  }
  const composite = pipeline.status();
  return {
    composite,
    status: nextPipelineStatus(currentStatus, composite),
    hasWarnings: pipeline.hasWarnings,
    stages: [...stages.entries()]
      .sort(([a], [b]) => a - b)
      .map(([stageIdx, { name, accumulator }]) => ({
        stageIdx,
        name,
        status: accumulator.status() ?? 'success',
        hasWarnings: accumulator.hasWarnings,
      })),
  };
}

/** "Passed with warnings": any latest job failed or canceled with `allow_failure`. */
export function pipelineHasWarnings(jobs: readonly PipelineJob[]): boolean {
  return jobs.some(
    (job) => !job.retried && job.allowFailure && (job.status === 'failed' || job.status === 'canceled'),
  );
}
