/**
 * Coverage after a job's end, as GitLab's `Ci::BuildFinishedWorker` finds it for every job that
 * ends `success`, `failed` or `canceled` (`Ci::Build#update_coverage`), and the pipeline's
 * average of it (`Ci::Pipeline#coverage`). A job the runner ends (or the coordinator fails) is
 * scanned before its final event (job-outcomes.ts). A job a cancel ends while it runs is scanned
 * after the cancel commits, by a durable task recorded in the cancel's transaction: the scan
 * reads the log from the trace store for seconds at most, which the pipeline's lock must not wait for.
 */
import type { JobChange, PipelineEvent } from '../../../../pipeline/types.ts';
import type { CiJobsStore } from '../../../../storage/types-ci-jobs.ts';
import type { CiStores, CiTransactions } from '../../../../storage/types-ci-transactions.ts';
import type { TaskHandler } from '../../task-queue.ts';
import type { JobCoverage } from '../runners/job-coverage.ts';

/** Task kind of the coverage scan of a job canceled while it ran (payload: CanceledJobCoverageTask). */
export const CANCELED_JOB_COVERAGE_TASK = 'job.canceled-coverage';

export interface CanceledJobCoverageTask {
  jobId: number;
}

/**
 * In the event's transaction: one scan task for each job with a `coverage` regex that the event
 * canceled while it ran (a job canceled before it started has no log, so no coverage). The
 * runner's own final report of a canceling job (`job-status`) is left out: its caller scanned
 * the log before the event. Answers how many tasks were recorded.
 */
export async function recordCanceledJobCoverage(stores: CiStores, event: PipelineEvent, changes: readonly JobChange[], now: string): Promise<number> {
  if (event.type === 'job-status') return 0;
  const ranIds = changes.flatMap((change) =>
    change.kind === 'update' && change.patch.status === 'canceled' && (change.previousStatus === 'running' || change.previousStatus === 'canceling') ? [change.jobId] : [],
  );
  if (ranIds.length === 0) return 0;
  const withRegex = (await stores.jobs.findByIds(ranIds)).filter((job) => Boolean(job.definition?.coverage));
  for (const job of withRegex) {
    const payload: CanceledJobCoverageTask = { jobId: job.id };
    await stores.tasks.enqueue({ kind: CANCELED_JOB_COVERAGE_TASK, payload, maxAttempts: 3, dedupeKey: `${CANCELED_JOB_COVERAGE_TASK}:${String(job.id)}` }, now);
  }
  return withRegex.length;
}

export interface CanceledJobCoverageDeps {
  jobs: Pick<CiJobsStore, 'findById'>;
  transactions: CiTransactions;
  coverage: Pick<JobCoverage, 'extract'>;
}

/**
 * The scan task's handler: the log as the cancel left it (a canceled job's runner may send no
 * more); a coverage found is stored on the job and averaged into its pipeline's under the
 * pipeline's lock, as an event would. A job deleted meanwhile is skipped.
 */
export function canceledJobCoverageHandler(deps: CanceledJobCoverageDeps): TaskHandler {
  return async (task) => {
    const { jobId } = task.payload as CanceledJobCoverageTask;
    const job = await deps.jobs.findById(jobId);
    const pattern = job?.definition?.coverage;
    if (!job || !pattern) return;
    const coverage = await deps.coverage.extract(job.id, pattern);
    if (coverage === null) return;
    await deps.transactions.run(async (stores) => {
      const pipeline = await stores.pipelines.lockForProcessing(job.pipeline_id);
      if (!pipeline || !(await stores.jobs.update(job.id, { coverage }))) return;
      const average = averageCoverage(await stores.jobs.latestCoverages(pipeline.id));
      if (average !== pipeline.coverage) await stores.pipelines.update(pipeline.id, { coverage: average });
    });
  };
}

/**
 * GitLab's `Ci::Pipeline#coverage` as its API shows it: the average of its latest jobs'
 * coverages (`coverage_array.sum / coverage_array.size`), formatted `'%.2f'` (`"78.50"`); null
 * when none has one. Kept on the pipeline, recomputed with each event (a finished job brings
 * its coverage, a retry puts the old job's out).
 */
export function averageCoverage(coverages: readonly number[]): string | null {
  if (coverages.length === 0) return null;
  return twoDecimals(compensatedSum(coverages) / coverages.length);
}

/**
 * Ruby's `Array#sum` of floats (Kahan-Babuska): a plain running sum can land an average one
 * bit off a tie (`33.12500000000001` for `33.125`), and the two decimals round the other way.
 */
function compensatedSum(values: readonly number[]): number {
  let sum = 0;
  let compensation = 0;
  for (const value of values) {
    const total = sum + value;
    compensation += Math.abs(sum) >= Math.abs(value) ? sum - total + value : value - total + sum;
    sum = total;
  }
  return sum + compensation;
}

/**
 * Ruby's `'%.2f'`: the exact binary value rounded to two decimals, a tie to the even digit
 * (`80.125` → `"80.12"`), where `toFixed` takes the larger. A double is a tie only when eight
 * times it is an odd integer (x.125, x.375, x.625, x.875).
 */
function twoDecimals(value: number): string {
  if (!Number.isInteger(value * 8) || Number.isInteger(value * 4)) return value.toFixed(2);
  const below = Math.floor(value * 100);
  return ((below % 2 === 0 ? below : below + 1) / 100).toFixed(2);
}
