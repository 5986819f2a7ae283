/**
 * Follows a pipeline of the local coordinator until it and its child pipelines are done:
 * prints each job's new trace bytes, plays the manual jobs asked for (through the jobs
 * service, as the API's play does), then reports every job's outcome.
 */
import { performance } from 'node:perf_hooks';
import type { ProcessedEvent } from '../coordinator/services/ci/pipelines/processing.ts';
import type { PipelineStatus } from '../pipeline/types.ts';
import type { JobRecord } from '../storage/types-ci-jobs.ts';
import type { PipelineRecord } from '../storage/types-ci.ts';
import type { ProjectRecord } from '../storage/types.ts';
import { ChangeSignal } from './changes.ts';
import { LogPrinter, type ExecIo, type ExecResult, type JobResult } from './output.ts';
import type { LocalCoordinator } from './session.ts';

/** Reads of the stores are at least this far apart (a burst of trace appends is one read)... */
const MINIMUM_READ_INTERVAL_MS = 25;
/** ...and at most this far when nothing reports a change. */
const FALLBACK_READ_INTERVAL_MS = 1_000;
const PAGE = { offset: 0, limit: 10_000 };
const ACTIVE: ReadonlySet<PipelineStatus> = new Set(['created', 'waiting_for_resource', 'pending', 'running', 'canceling', 'scheduled']);

export interface FollowOptions {
  /** Names (or base names) of manual jobs to play. */
  play: ReadonlySet<string>;
  io: ExecIo;
  /** Logs go to stderr with --json, so that stdout is the result alone. */
  json: boolean;
  colour: boolean;
  /** Print the runner's sections whole instead of their header line. */
  verbose?: boolean;
  signal?: AbortSignal;
  /** Told the jobs of the run (child pipelines' too) on every pass, before manual ones are played. */
  onJobs?: (jobs: readonly JobRecord[]) => Promise<void>;
}

/**
 * The jobs (retried ones too) and pipelines of the run's projects, by id: the working tree's,
 * and the `--project`s its trigger jobs may start pipelines in.
 */
export async function runRecords(local: LocalCoordinator, projects: readonly ProjectRecord[]): Promise<{ jobs: JobRecord[]; pipelines: PipelineRecord[] }> {
  const jobs = await runJobs(local, projects);
  const { stores } = local.coordinator.context;
  const pipelines: PipelineRecord[] = [];
  for (const project of projects) pipelines.push(...(await stores.pipelines.list({ projectId: project.id }, PAGE)).items);
  if (projects.length > 1) pipelines.sort((a, b) => b.id - a.id);
  return { jobs, pipelines };
}

/** The jobs of the run's projects (retried ones too), by id. */
export async function runJobs(local: LocalCoordinator, projects: readonly ProjectRecord[]): Promise<JobRecord[]> {
  const { stores } = local.coordinator.context;
  const jobs: JobRecord[] = [];
  for (const project of projects) jobs.push(...(await stores.jobs.list({ projectId: project.id, sort: 'asc', includeRetried: true }, PAGE)).items);
  if (projects.length > 1) jobs.sort((a, b) => a.id - b.id);
  return jobs;
}

/** `projects`: the working tree's first, then the others whose pipelines belong to the run (trigger:project). */
export async function followPipeline(local: LocalCoordinator, projects: readonly ProjectRecord[], pipeline: PipelineRecord, options: FollowOptions): Promise<ExecResult> {
  const { stores } = local.coordinator.context;
  const traces = local.ci.ciBlobs.traces;
  const printed = new Map<number, number>();
  /** Finished jobs whose trace was read after they finished: their trace is whole, it is not read again until the last pass. */
  const settled = new Set<number>();
  const played = new Set<number>();
  let printer: LogPrinter | undefined;
  const write = options.json ? options.io.stderr : options.io.stdout;

  /** A child pipeline's job is named after the trigger jobs above it (`spawn › rspec`), as in the summary. */
  const printTraces = async (jobs: readonly JobRecord[], pipelines: readonly PipelineRecord[], final: boolean): Promise<void> => {
    const upstream = upstreamChains(jobs, pipelines);
    const shownName = (job: JobRecord): string => [...upstream(job.pipeline_id), job.name].join(' › ');
    printer ??= new LogPrinter(write, options.colour, jobs.map(shownName), options.verbose);
    for (const job of jobs) {
      if (!final && settled.has(job.id)) continue;
      // A job no runner has started has no log yet: not asked for it (most jobs, most passes).
      if (!final && job.started_at === null) continue;
      const from = printed.get(job.id) ?? 0;
      const size = await traces.size(job.id);
      const done = final || !['pending', 'running', 'canceling'].includes(job.status);
      if (size <= from && !(done && printed.has(job.id))) continue;
      const bytes = size > from ? await readRange(traces, job.id, from, size) : Buffer.alloc(0);
      // Never backwards: a finished job's trace can read short for a moment while it is archived.
      printed.set(job.id, Math.max(from, size));
      printer.add(job.id, shownName(job), bytes, done);
      // A job's final state is taken only with its whole trace: nothing is appended after it.
      if (done) settled.add(job.id);
    }
  };

  // A pipeline that finished is read at once: the run ends with that read.
  const settles = (processed: ProcessedEvent): boolean => !ACTIVE.has(processed.pipeline.status);
  const changes = new ChangeSignal({ processing: local.ci.pipelineProcessing, server: local.coordinator.app.server, settles });
  try {
    await followUntilDone();
  } finally {
    changes.close();
  }

  async function followUntilDone(): Promise<void> {
    for (;;) {
      options.signal?.throwIfAborted();
      // Retried jobs too: an attempt that failed and was retried has its log to finish.
      const records = await runRecords(local, projects);
      const { jobs } = records;
      let { pipelines } = records;
      await options.onJobs?.(jobs);
      let playedNow = false;
      for (const job of jobs) {
        if (job.status === 'manual' && !played.has(job.id) && (options.play.has(job.name) || options.play.has(job.definition?.baseName ?? job.name))) {
          played.add(job.id);
          playedNow = true;
          await local.ci.jobs.play(String(job.project_id), local.root, job.id);
        }
      }
      // A job played moves its pipeline: read after it.
      if (playedNow) ({ pipelines } = await runRecords(local, projects));
      await printTraces(jobs, pipelines, false);
      if (pipelines.every((each) => !ACTIVE.has(each.status)) && !jobs.some((job) => job.status === 'manual' && !played.has(job.id) && options.play.has(job.name))) break;
      await changes.next({ minimumMs: MINIMUM_READ_INTERVAL_MS, fallbackMs: FALLBACK_READ_INTERVAL_MS, signal: options.signal });
    }
  }
  const { jobs, pipelines } = await runRecords(local, projects);
  await printTraces(jobs, pipelines, true);
  const final = (await stores.pipelines.findById(pipeline.id)) ?? pipeline;
  const starts = jobs.flatMap((job) => (job.started_at ? [Date.parse(job.started_at)] : []));
  return {
    startupMs: starts.length > 0 ? Math.round(Math.min(...starts) - performance.timeOrigin) : null,
    status: final.status,
    exitCode: final.status === 'success' || final.status === 'manual' ? 0 : 1,
    pipelineId: final.id,
    pipelineName: final.name,
    jobs: withUpstream(jobs.filter((job) => !job.retried).map(jobResult), jobs, pipelines),
  };
}

/** Each job's trigger jobs, outermost first. */
function withUpstream(results: JobResult[], jobs: readonly JobRecord[], pipelines: readonly PipelineRecord[]): JobResult[] {
  const upstream = upstreamChains(jobs, pipelines);
  return results.map((job) => ({ ...job, upstream: upstream(job.pipelineId) }));
}

/** The trigger jobs above a pipeline, outermost first, by each pipeline's `source_job_id` (a bridge of the pipeline above). */
function upstreamChains(jobs: readonly JobRecord[], pipelines: readonly PipelineRecord[]): (pipelineId: number) => string[] {
  const bridges = new Map(jobs.map((job) => [job.id, job]));
  const sourceJob = new Map(pipelines.map((each) => [each.id, each.source_job_id]));
  return (pipelineId) => {
    const names: string[] = [];
    // At most as many steps as pipelines: a loop in the records cannot hold the run.
    for (let id: number | null | undefined = sourceJob.get(pipelineId), steps = 0; id != null && steps < pipelines.length; steps += 1) {
      const bridge = bridges.get(id);
      if (!bridge) break;
      names.unshift(bridge.name);
      id = sourceJob.get(bridge.pipeline_id);
    }
    return names;
  };
}

async function readRange(traces: LocalCoordinator['ci']['ciBlobs']['traces'], jobId: number, start: number, end: number): Promise<Buffer> {
  const stream = await traces.read(jobId, { start, end });
  if (!stream) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

function jobResult(job: JobRecord): JobResult {
  const duration = job.started_at && job.finished_at ? (Date.parse(job.finished_at) - Date.parse(job.started_at)) / 1000 : null;
  return {
    id: job.id,
    name: job.name,
    stage: job.stage,
    status: job.status,
    allowFailure: job.allow_failure,
    duration,
    startedAt: job.started_at,
    finishedAt: job.finished_at,
    failureReason: job.failure_reason,
    coverage: job.coverage,
    pipelineId: job.pipeline_id,
    // A bridge whose downstream pipeline was not created names why.
    ...(job.downstream_errors && job.downstream_errors.length > 0 ? { downstreamErrors: job.downstream_errors.join(', ') } : {}),
  };
}
