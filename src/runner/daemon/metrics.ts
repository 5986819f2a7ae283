/**
 * The runner's Prometheus metrics (prom-client, on a Registry of its own: never the global
 * one, so an embedding process and the tests can run several runners). gitlab-runner's
 * names where it has one, so its dashboards and alerts work; `runner` is the short token,
 * as in gitlab-runner. Gauges are read from the daemon at scrape time, so a config reload
 * shows at once and removed entries disappear.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { PRODUCT_NAME, REVISION, VERSION } from '../version.ts';

/** One `[[runners]]` entry as the metrics and /health see it. */
export interface RunnerStatus {
  /** Short token (first 8 characters). */
  runner: string;
  name: string;
  limit: number;
  /** Job requests in flight now. */
  requesting: number;
  /** Jobs of this entry running now. */
  running: number;
  /** False while the entry is disabled after three 403s in a row. */
  healthy: boolean;
}

export interface DaemonStatus {
  concurrent: number;
  /** False once SIGQUIT/SIGTERM stopped the daemon taking jobs. */
  accepting: boolean;
  runners: RunnerStatus[];
}

export interface JobLabels {
  runner: string;
  name: string;
}

/** What the daemon reports as it works (the metrics implement it; tests may record it). */
export interface DaemonObserver {
  jobStarted(labels: JobLabels): void;
  jobFinished(labels: JobLabels, outcome: { state: 'success' | 'failed'; failureReason?: string }, seconds: number): void;
  /** `status` -1: no answer (network error, timeout). */
  apiRequest(labels: JobLabels, endpoint: string, status: number): void;
  /** One stage of a job (prepare_executor, get_sources, step_script, ...) took `seconds`. */
  jobStage?(labels: JobLabels, stage: string, seconds: number): void;
}

/** pino's numeric levels → logrus' names, which gitlab_runner_errors_total uses. */
const ERROR_LEVELS: Record<number, string> = { 40: 'warning', 50: 'error', 60: 'fatal' };

const JOB_DURATION_BUCKETS = [30, 60, 300, 600, 1800, 3600, 7200, 10800, 18000, 36000];
const STAGE_DURATION_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800];

export class RunnerMetrics implements DaemonObserver {
  readonly registry = new Registry();
  private status: () => DaemonStatus = () => ({ concurrent: 0, accepting: false, runners: [] });
  private readonly jobsTotal: Counter<'runner' | 'runner_name'>;
  private readonly jobsFinished: Counter<'runner' | 'runner_name' | 'state' | 'failure_reason'>;
  private readonly failedJobs: Counter<'runner' | 'runner_name' | 'failure_reason'>;
  private readonly jobDuration: Histogram<'runner' | 'runner_name'>;
  private readonly stageDuration: Histogram<'runner' | 'runner_name' | 'stage'>;
  private readonly apiRequests: Counter<'runner' | 'runner_name' | 'endpoint' | 'status'>;
  private readonly errors: Counter<'level'>;

  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    const current = (): DaemonStatus => this.status();
    new Gauge({
      name: 'gitlab_runner_version_info',
      help: 'The runner version (always 1).',
      labelNames: ['name', 'version', 'revision', 'os', 'architecture'],
      registers,
      collect() {
        this.set({ name: PRODUCT_NAME, version: VERSION, revision: REVISION, os: process.platform, architecture: process.arch }, 1);
      },
    });
    new Gauge({
      name: 'gitlab_runner_concurrent',
      help: 'The global concurrent setting: jobs this process runs at once.',
      registers,
      collect() {
        this.set(current().concurrent);
      },
    });
    new Gauge({
      name: 'gitlab_runner_limit',
      help: 'The limit setting of each runner entry (0: no limit besides concurrent).',
      labelNames: ['runner', 'runner_name'],
      registers,
      collect() {
        this.reset();
        for (const entry of current().runners) this.set({ runner: entry.runner, runner_name: entry.name }, entry.limit);
      },
    });
    new Gauge({
      name: 'gitlab_runner_request_concurrency',
      help: 'Job requests in flight now, per runner entry (at most its request_concurrency).',
      labelNames: ['runner', 'runner_name'],
      registers,
      collect() {
        this.reset();
        for (const entry of current().runners) this.set({ runner: entry.runner, runner_name: entry.name }, entry.requesting);
      },
    });
    new Gauge({
      name: 'gitlab_runner_jobs',
      help: 'Jobs running now, per runner entry.',
      labelNames: ['runner', 'runner_name', 'state'],
      registers,
      collect() {
        this.reset();
        for (const entry of current().runners) this.set({ runner: entry.runner, runner_name: entry.name, state: 'running' }, entry.running);
      },
    });
    new Gauge({
      name: 'gitlab_runner_healthy',
      help: '1 while a runner entry takes jobs, 0 while it is disabled after three 403s in a row.',
      labelNames: ['runner', 'runner_name'],
      registers,
      collect() {
        this.reset();
        for (const entry of current().runners) this.set({ runner: entry.runner, runner_name: entry.name }, entry.healthy ? 1 : 0);
      },
    });
    this.jobsTotal = new Counter({ name: 'gitlab_runner_jobs_total', help: 'Jobs started.', labelNames: ['runner', 'runner_name'], registers });
    this.jobsFinished = new Counter({
      name: 'gitlab_runner_jobs_finished_total',
      help: 'Jobs finished, by final state and failure reason (empty for success).',
      labelNames: ['runner', 'runner_name', 'state', 'failure_reason'],
      registers,
    });
    this.failedJobs = new Counter({ name: 'gitlab_runner_failed_jobs_total', help: 'Jobs failed, by failure reason.', labelNames: ['runner', 'runner_name', 'failure_reason'], registers });
    this.jobDuration = new Histogram({ name: 'gitlab_runner_job_duration_seconds', help: 'How long jobs ran.', labelNames: ['runner', 'runner_name'], buckets: JOB_DURATION_BUCKETS, registers });
    this.stageDuration = new Histogram({
      name: 'gitlab_runner_job_stage_duration_seconds',
      help: 'How long each stage of a job took (prepare_executor, get_sources, step_script, ...).',
      labelNames: ['runner', 'runner_name', 'stage'],
      buckets: STAGE_DURATION_BUCKETS,
      registers,
    });
    this.apiRequests = new Counter({
      name: 'gitlab_runner_api_request_statuses_total',
      help: 'Requests to the coordinator by endpoint and answer status (-1: no answer).',
      labelNames: ['runner', 'runner_name', 'endpoint', 'status'],
      registers,
    });
    this.errors = new Counter({ name: 'gitlab_runner_errors_total', help: 'Warnings and errors logged, by level.', labelNames: ['level'], registers });
    for (const level of Object.values(ERROR_LEVELS)) this.errors.inc({ level }, 0);
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /** Where the gauges read their values at scrape time. */
  watch(status: () => DaemonStatus): void {
    this.status = status;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** For createLogger's `onLine`: counts warnings and errors as gitlab-runner does. */
  readonly countLogLine = (level: number): void => {
    const name = ERROR_LEVELS[level];
    if (name) this.errors.inc({ level: name });
  };

  jobStarted(labels: JobLabels): void {
    this.jobsTotal.inc({ runner: labels.runner, runner_name: labels.name });
  }

  jobFinished(labels: JobLabels, outcome: { state: 'success' | 'failed'; failureReason?: string }, seconds: number): void {
    const base = { runner: labels.runner, runner_name: labels.name };
    const failureReason = outcome.state === 'failed' ? (outcome.failureReason ?? 'unknown_failure') : '';
    this.jobsFinished.inc({ ...base, state: outcome.state, failure_reason: failureReason });
    if (outcome.state === 'failed') this.failedJobs.inc({ ...base, failure_reason: failureReason });
    this.jobDuration.observe(base, seconds);
  }

  jobStage(labels: JobLabels, stage: string, seconds: number): void {
    this.stageDuration.observe({ runner: labels.runner, runner_name: labels.name, stage }, seconds);
  }

  apiRequest(labels: JobLabels, endpoint: string, status: number): void {
    this.apiRequests.inc({ runner: labels.runner, runner_name: labels.name, endpoint, status: String(status) });
  }
}
