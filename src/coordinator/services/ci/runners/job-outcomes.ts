import type { JobStatus } from '../../../../pipeline/types.ts';
import { GantryError } from '../../../../shared/errors.ts';
import type { CiJobsStore, JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { PipelineProcessing } from '../pipelines/processing.ts';
import type { JobCoverage } from './job-coverage.ts';

/** Refusals of processing that mean "the job moved on meanwhile" (canceled, deleted). */
const MOVED_ON: ReadonlySet<string> = new Set(['GANTRY_E_JOB_TRANSITION_INVALID', 'GANTRY_E_JOB_NOT_FOUND', 'GANTRY_E_PIPELINE_NOT_FOUND']);

export interface JobOutcomesDeps {
  processing: Pick<PipelineProcessing, 'apply'>;
  jobs: Pick<CiJobsStore, 'findById' | 'update'>;
  /** Finds the coverage of a job with a `coverage` regex in its log. */
  coverage?: Pick<JobCoverage, 'extract'>;
}

/**
 * A runner job's final state, always through pipeline processing so the pipeline moves on
 * (next stages, retries, the pipeline's status). Used by the runner's final update, the
 * trace size limit and the stuck/timeout sweeps. A job with a `coverage` regex first gets
 * the coverage its log shows (GitLab's `Ci::Build#update_coverage`), so the event that
 * finishes it averages it into the pipeline's; a canceling job ends canceled with it. A job a
 * cancel ends while it runs is scanned after the cancel (pipeline-coverage.ts).
 */
export class JobOutcomes {
  constructor(private readonly deps: JobOutcomesDeps) {}

  /**
   * Moves the job to `status`; when it already moved on (a cancel won the race), leaves it.
   * Answers whether this call moved it and the job's status afterwards. `exitCode` (the
   * script's, with a failure) decides `retry:exit_codes`.
   */
  async finish(
    job: Pick<JobRecord, 'id' | 'pipeline_id' | 'definition'>,
    status: 'success' | 'failed',
    failureReason: string | null = null,
    exitCode: number | null = null,
  ): Promise<{ moved: boolean; status: JobStatus }> {
    await this.recordCoverage(job);
    try {
      await this.deps.processing.apply(job.pipeline_id, { type: 'job-status', jobId: job.id, status, failureReason, exitCode });
    } catch (error) {
      if (!(error instanceof GantryError && MOVED_ON.has(error.code))) throw error;
      const current = await this.deps.jobs.findById(job.id);
      return { moved: false, status: current?.status ?? 'canceled' };
    }
    const current = await this.deps.jobs.findById(job.id);
    // An automatic retry leaves this job failed (a new job takes its place).
    return { moved: true, status: current?.status ?? status };
  }

  /** Fails the job for `reason`; answers its status afterwards. */
  async fail(job: Pick<JobRecord, 'id' | 'pipeline_id' | 'definition'>, reason: string): Promise<JobStatus> {
    return (await this.finish(job, 'failed', reason)).status;
  }

  /** Kept only when found: a job without one keeps what it had. */
  private async recordCoverage(job: Pick<JobRecord, 'id' | 'definition'>): Promise<void> {
    const pattern = job.definition?.coverage;
    if (!pattern || !this.deps.coverage) return;
    const coverage = await this.deps.coverage.extract(job.id, pattern);
    if (coverage !== null) await this.deps.jobs.update(job.id, { coverage });
  }
}
