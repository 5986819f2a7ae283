/**
 * Pipelines for API tests before pushes and runners drive them: `seedPipeline` stores a
 * pipeline with its stages and jobs and processes it (first jobs pending), `moveJob` reports a
 * job status as a runner would. Both go through the real stores and the real processing service.
 */
import type { Coordinator } from '../../src/coordinator/app.ts';
import { PipelineProcessing, type ProcessedEvent } from '../../src/coordinator/services/ci/pipelines/processing.ts';
import type { JobNeed, JobWhen, ReportedJobStatus } from '../../src/pipeline/types.ts';
import type { JobRecord, JobType } from '../../src/storage/types-ci-jobs.ts';
import type { PipelineRecord } from '../../src/storage/types-ci.ts';

export interface SeedJob {
  name: string;
  stage: string;
  when?: JobWhen;
  allowFailure?: boolean;
  needs?: JobNeed[] | null;
  startInSeconds?: number;
  type?: JobType;
  environment?: string;
  tags?: string[];
  /** The job's `resource_group` key. */
  resourceGroup?: string;
}

export interface SeedPipeline {
  projectId: number;
  ref?: string;
  sha?: string;
  tag?: boolean;
  source?: string;
  userId?: number | null;
  /** Stage names in order; default: the jobs' stages in order of appearance. */
  stages?: string[];
  jobs: SeedJob[];
  /** Process after inserting (default true): the first stage's jobs become pending. */
  process?: boolean;
}

export interface SeededPipeline {
  pipeline: PipelineRecord;
  /** By name (the first job of each name). */
  jobs: Record<string, JobRecord>;
}

const DEFAULT_SHA = 'b'.repeat(40);

export function processingOf(coordinator: Coordinator): PipelineProcessing {
  return new PipelineProcessing({ transactions: coordinator.context.stores.ciTransactions });
}

export async function seedPipeline(coordinator: Coordinator, seed: SeedPipeline): Promise<SeededPipeline> {
  const { stores } = coordinator.context;
  const now = new Date().toISOString();
  const ref = seed.ref ?? 'main';
  const sha = seed.sha ?? DEFAULT_SHA;
  const pipeline = await stores.pipelines.create({
    project_id: seed.projectId, ref, sha, tag: seed.tag ?? false, source: seed.source ?? 'push', status: 'created', user_id: seed.userId ?? null, created_at: now,
  });
  const stageNames = seed.stages ?? [...new Set(seed.jobs.map((job) => job.stage))];
  const stages = await stores.stages.insertMany(pipeline.id, stageNames.map((name, position) => ({ name, position, status: 'created' })));
  const stageOf = new Map(stages.map((stage) => [stage.name, stage]));
  const inserted = await stores.jobs.insertMany(
    seed.jobs.map((job) => {
      const stage = stageOf.get(job.stage);
      if (!stage) throw new Error(`seedPipeline: job ${job.name} names stage ${job.stage}, not in ${stageNames.join(', ')}`);
      return {
        pipeline_id: pipeline.id, project_id: seed.projectId, stage_id: stage.id, stage: stage.name, stage_idx: stage.position, name: job.name,
        type: job.type ?? 'build', status: 'created', when: job.when ?? 'on_success', allow_failure: job.allowFailure ?? false,
        needs: job.needs ?? null, start_in_seconds: job.startInSeconds ?? null, environment: job.environment ?? null, tag_list: job.tags ?? [],
        resource_group: job.resourceGroup ?? null,
        ref, sha, tag: seed.tag ?? false, user_id: seed.userId ?? null, created_at: now,
      };
    }),
  );
  if (seed.process !== false) await processingOf(coordinator).apply(pipeline.id, { type: 'process' });
  const jobs: Record<string, JobRecord> = {};
  for (const job of inserted) jobs[job.name] ??= (await stores.jobs.findById(job.id)) ?? job;
  return { pipeline: (await stores.pipelines.findById(pipeline.id)) ?? pipeline, jobs };
}

/** Reports a job status as a runner would (`running`, then `success` or `failed`). */
export async function moveJob(coordinator: Coordinator, job: Pick<JobRecord, 'id' | 'pipeline_id'>, status: ReportedJobStatus, failureReason?: string): Promise<ProcessedEvent> {
  return processingOf(coordinator).apply(job.pipeline_id, { type: 'job-status', jobId: job.id, status, failureReason: failureReason ?? null });
}
