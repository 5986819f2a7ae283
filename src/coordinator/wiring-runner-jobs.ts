import { RegexBudget } from '../shared/regex-budget.ts';
import type { TraceStore } from '../storage/types-blobs.ts';
import type { CoordinatorContext } from './context.ts';
import type { PipelineProcessing } from './services/ci/pipelines/processing.ts';
import { JobCoverage, type CoverageLimits } from './services/ci/runners/job-coverage.ts';
import { JobOutcomes } from './services/ci/runners/job-outcomes.ts';
import { JobTraces, TRACE_DEFAULTS, TraceWatch, type TraceLimits } from './services/ci/runners/job-traces.ts';
import { JobUpdates } from './services/ci/runners/job-updates.ts';
import { JobStatusWatch } from './services/ci/runners/job-watch.ts';
import { StaleJobs, type StaleJobLimits } from './services/ci/runners/stale-jobs.ts';

/** Runner-side job handling: trace limits and update intervals, stuck and timeout sweeps. */
export interface RunnerJobOptions {
  traces?: TraceLimits;
  stale?: StaleJobLimits;
  /** The budget of the `coverage` regex's scan of a finished job's log. */
  coverage?: CoverageLimits;
}

/**
 * The regex thread of coverage scans: one per process, apart from the webhook filters' so a
 * long log does not delay a push's deliveries. Programs up to 5,000 instructions (a pattern
 * passed the CI file's RE2 check, with no size limit), a second per chunk of lines.
 */
const coverageRegexes = new RegexBudget({ maxProgramSize: 5_000 });

/** Job updates, incremental traces and stale-job sweeps (reference/runner-protocol.md §4–§5). */
export function buildRunnerJobServices(
  context: Pick<CoordinatorContext, 'stores' | 'logger'>,
  deps: { processing: PipelineProcessing; traces: TraceStore; jobStatusWatch: JobStatusWatch },
  options: RunnerJobOptions = {},
) {
  const { stores, logger } = context;
  const { jobStatusWatch } = deps;
  const coverage = new JobCoverage({ traces: deps.traces, regexes: coverageRegexes, logger, limits: options.coverage });
  const jobOutcomes = new JobOutcomes({ processing: deps.processing, jobs: stores.jobs, coverage });
  const traceWatch = new TraceWatch();
  const jobTraces = new JobTraces({ jobs: stores.jobs, traces: deps.traces, outcomes: jobOutcomes, watch: traceWatch, limits: options.traces });
  const jobUpdates = new JobUpdates({
    jobs: stores.jobs, traces: deps.traces, outcomes: jobOutcomes, watch: jobStatusWatch, logger, traceMaxBytes: options.traces?.maxBytes ?? TRACE_DEFAULTS.maxBytes,
  });
  const staleJobs = new StaleJobs({ jobs: stores.jobs, runners: stores.runners, outcomes: jobOutcomes, logger, limits: options.stale });
  return { jobCoverage: coverage, jobOutcomes, traceWatch, jobTraces, jobUpdates, staleJobs, jobStatusWatch };
}
