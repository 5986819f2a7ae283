/**
 * Per-event cost of the pipeline state rules as pipelines grow from 10 to 1,000 jobs.
 * Prints one JSON line. Run: node --import tsx bench/pipeline-processing.ts
 *
 * Each pipeline has 5 stages; every fourth job is a DAG job needing two jobs of the previous
 * stage, every seventh may fail, every eleventh is an optional manual job. `handleEvent` is
 * pure, so each event is replayed many times against the same state.
 */
import { performance } from 'node:perf_hooks';
import { handleEvent, type JobStatus, type PipelineEvent, type PipelineJob, type PipelineState } from '../src/pipeline/index.ts';

const SIZES = [10, 100, 1000];
const STAGE_COUNT = 5;
const BATCHES = 7;
const BATCH_MILLISECONDS = 60;

function buildJobs(size: number): PipelineJob[] {
  const perStage = Math.ceil(size / STAGE_COUNT);
  const jobs: PipelineJob[] = [];
  for (let index = 0; index < size; index++) {
    const stageIdx = Math.floor(index / perStage);
    const positionInStage = index % perStage;
    const isDag = stageIdx > 0 && index % 4 === 0;
    const previousStageStart = (stageIdx - 1) * perStage;
    jobs.push({
      id: index + 1,
      name: `job-${index}`,
      stage: `stage-${stageIdx}`,
      stageIdx,
      status: 'created',
      when: index % 11 === 5 ? 'manual' : 'on_success',
      allowFailure: index % 11 === 5 || index % 7 === 3,
      needs: isDag
        ? [{ name: `job-${previousStageStart + (positionInStage % perStage)}` }, { name: `job-${previousStageStart}` }]
        : null,
      retry: { max: 1, when: ['runner_system_failure'] },
      retried: false,
    });
  }
  return jobs;
}

/** The first stages finished, the middle stage running, later ones waiting. */
function midPipeline(size: number): PipelineState {
  const jobs = buildJobs(size).map((job): PipelineJob => {
    const middle = Math.floor(STAGE_COUNT / 2);
    let status: JobStatus = 'created';
    if (job.stageIdx < middle) status = job.when === 'manual' ? 'manual' : 'success';
    else if (job.stageIdx === middle) status = job.when === 'manual' ? 'manual' : 'running';
    return { ...job, status };
  });
  return { status: 'running', jobs };
}

function firstRunningJob(state: PipelineState): PipelineJob {
  const job = state.jobs.find((candidate) => candidate.status === 'running');
  if (!job) throw new Error('no running job');
  return job;
}

interface Scenario {
  readonly name: string;
  readonly state: PipelineState;
  readonly event: PipelineEvent;
}

function scenarios(size: number): Scenario[] {
  const fresh: PipelineState = { status: 'created', jobs: buildJobs(size) };
  const middle = midPipeline(size);
  const running = firstRunningJob(middle);
  // Every other job of the middle stage done: this success completes the stage.
  const stageClosing: PipelineState = {
    status: 'running',
    jobs: middle.jobs.map((job) =>
      job.status === 'running' && job.id !== running.id ? { ...job, status: 'success' } : job,
    ),
  };
  const failedState: PipelineState = {
    status: 'running',
    jobs: middle.jobs.map((job) => (job.id === running.id ? { ...job, status: 'failed' } : job)),
  };
  return [
    { name: 'process-new-pipeline', state: fresh, event: { type: 'process' } },
    { name: 'job-success', state: middle, event: { type: 'job-status', jobId: running.id, status: 'success' } },
    {
      name: 'job-success-completes-stage',
      state: stageClosing,
      event: { type: 'job-status', jobId: running.id, status: 'success' },
    },
    {
      name: 'job-failed-auto-retry',
      state: middle,
      event: { type: 'job-status', jobId: running.id, status: 'failed', failureReason: 'runner_system_failure' },
    },
    { name: 'retry-job', state: failedState, event: { type: 'retry-job', jobId: running.id } },
    { name: 'cancel-pipeline', state: middle, event: { type: 'cancel-pipeline' } },
    { name: 'retry-pipeline', state: failedState, event: { type: 'retry-pipeline' } },
  ];
}

/** Median microseconds per event over several timed batches. */
function measure(scenario: Scenario): number {
  const run = (): void => {
    handleEvent(scenario.state, scenario.event, { now: 0 });
  };
  for (let warmup = 0; warmup < 200; warmup++) run();
  const perEvent: number[] = [];
  for (let batch = 0; batch < BATCHES; batch++) {
    let iterations = 0;
    const started = performance.now();
    let elapsed = 0;
    while (elapsed < BATCH_MILLISECONDS) {
      for (let inner = 0; inner < 10; inner++) run();
      iterations += 10;
      elapsed = performance.now() - started;
    }
    perEvent.push((elapsed * 1000) / iterations);
  }
  perEvent.sort((a, b) => a - b);
  return perEvent[Math.floor(perEvent.length / 2)];
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

const results: { event: string; jobs: number; usPerEvent: number; usPerEventPerJob: number }[] = [];
for (const size of SIZES) {
  for (const scenario of scenarios(size)) {
    const microseconds = measure(scenario);
    results.push({
      event: scenario.name,
      jobs: size,
      usPerEvent: round(microseconds, 2),
      usPerEventPerJob: round(microseconds / size, 4),
    });
  }
}

/** Per-job cost at 1,000 jobs divided by per-job cost at 100 jobs: ≈1 means linear. */
const flatness: Record<string, number> = {};
for (const { event } of results.filter((result) => result.jobs === 1000)) {
  const perJob = (jobs: number): number =>
    results.find((result) => result.event === event && result.jobs === jobs)?.usPerEventPerJob ?? Number.NaN;
  flatness[event] = round(perJob(1000) / perJob(100), 2);
}

console.log(
  JSON.stringify({
    bench: 'pipeline-processing',
    node: process.version,
    stages: STAGE_COUNT,
    results,
    perJobRatio1000vs100: flatness,
  }),
);
