/**
 * Scenario helper: build a pipeline from short job specs, then replay events and check
 * every job's status and the pipeline's status after each step.
 *
 * Jobs are named in expectations by name; a job replaced by a retry is `name#1` for the
 * first attempt, `name#2` for the second, and so on, while `name` is the latest attempt.
 */
import assert from 'node:assert/strict';
import {
  applyChanges,
  canTransition,
  JOB_STATUSES,
  handleEvent,
  type EventResult,
  type JobNeed,
  type JobStatus,
  type JobWhen,
  type PipelineEvent,
  type PipelineJob,
  type PipelineState,
  type PipelineStatus,
  type RetryPolicy,
} from '../../src/pipeline/index.ts';
import { errorStatus } from '../../src/coordinator/http/error-responses.ts';
import { isGantryError } from '../../src/shared/errors.ts';

/** Whether `error` is a domain error the API answers with `status`. */
function isGantryErrorWithStatus(error: unknown, status: number): boolean {
  return isGantryError(error) && errorStatus(error) === status;
}

export interface JobSpec {
  readonly name: string;
  readonly stage: string;
  readonly when?: JobWhen;
  /** Defaults like GitLab: true for `when: manual`, false otherwise. */
  readonly allowFailure?: boolean;
  readonly needs?: readonly (string | JobNeed)[];
  readonly retry?: number | RetryPolicy;
  readonly startInSeconds?: number;
  readonly external?: boolean;
  /** The runner that takes the job announces `cancel_gracefully`. */
  readonly cancelGracefully?: boolean;
  /** The job's `resource_group` key. */
  readonly resourceGroup?: string;
}

export function pipelineOf(stages: readonly string[], specs: readonly JobSpec[]): PipelineState {
  const jobs = specs.map((spec, position): PipelineJob => {
    const stageIdx = stages.indexOf(spec.stage);
    if (stageIdx < 0) throw new Error(`unknown stage ${spec.stage}`);
    const when = spec.when ?? 'on_success';
    return {
      id: position + 1,
      name: spec.name,
      stage: spec.stage,
      stageIdx,
      status: 'created',
      when,
      allowFailure: spec.allowFailure ?? when === 'manual',
      needs: spec.needs ? spec.needs.map((need) => (typeof need === 'string' ? { name: need } : need)) : null,
      retry: typeof spec.retry === 'number' ? { max: spec.retry, when: ['always'] } : (spec.retry ?? null),
      retried: false,
      ...(spec.startInSeconds === undefined ? {} : { startInSeconds: spec.startInSeconds }),
      ...(spec.external ? { external: true } : {}),
      ...(spec.cancelGracefully ? { cancelGracefully: true } : {}),
      ...(spec.resourceGroup ? { resourceGroup: spec.resourceGroup } : {}),
    };
  });
  return { status: 'created', jobs };
}

/** An event described by job names, resolved against the state it is applied to. */
export interface ScenarioEvent {
  readonly label: string;
  readonly build: (state: PipelineState) => PipelineEvent;
}

function latestId(state: PipelineState, name: string): number {
  const job = state.jobs.find((candidate) => candidate.name === name && !candidate.retried);
  if (!job) throw new Error(`no latest job named ${name}`);
  return job.id;
}

function onJob(label: string, name: string, make: (jobId: number) => PipelineEvent): ScenarioEvent {
  return { label: `${label} ${name}`, build: (state) => make(latestId(state, name)) };
}

export const process = (): ScenarioEvent => ({ label: 'process', build: () => ({ type: 'process' }) });
export const start = (name: string): ScenarioEvent =>
  onJob('start', name, (jobId) => ({ type: 'job-status', jobId, status: 'running' }));
export const succeed = (name: string): ScenarioEvent =>
  onJob('succeed', name, (jobId) => ({ type: 'job-status', jobId, status: 'success' }));
export const fail = (name: string, failureReason = 'script_failure'): ScenarioEvent =>
  onJob(`fail(${failureReason})`, name, (jobId) => ({ type: 'job-status', jobId, status: 'failed', failureReason }));
export const failWithExitCode = (name: string, exitCode: number, failureReason = 'script_failure'): ScenarioEvent =>
  onJob(`fail(${failureReason}, exit ${exitCode})`, name, (jobId) => ({ type: 'job-status', jobId, status: 'failed', failureReason, exitCode }));
export const report = (name: string, status: 'pending' | 'running' | 'success' | 'failed' | 'canceled' | 'skipped'): ScenarioEvent =>
  onJob(`report ${status}`, name, (jobId) => ({ type: 'job-status', jobId, status }));
export const cancel = (name: string): ScenarioEvent => onJob('cancel', name, (jobId) => ({ type: 'cancel-job', jobId }));
export const forceCancel = (name: string): ScenarioEvent => onJob('force cancel', name, (jobId) => ({ type: 'cancel-job', jobId, force: true }));
export const retry = (name: string): ScenarioEvent => onJob('retry', name, (jobId) => ({ type: 'retry-job', jobId }));
export const play = (name: string): ScenarioEvent => onJob('play', name, (jobId) => ({ type: 'play-job', jobId }));
export const unschedule = (name: string): ScenarioEvent =>
  onJob('unschedule', name, (jobId) => ({ type: 'unschedule-job', jobId }));
export const timeReached = (name: string): ScenarioEvent =>
  onJob('time reached', name, (jobId) => ({ type: 'scheduled-time-reached', jobId }));
export const assignResource = (name: string): ScenarioEvent =>
  onJob('assign resource', name, (jobId) => ({ type: 'assign-resource', jobId }));
export const cancelPipeline = (): ScenarioEvent => ({ label: 'cancel pipeline', build: () => ({ type: 'cancel-pipeline' }) });
export const retryPipeline = (): ScenarioEvent => ({ label: 'retry pipeline', build: () => ({ type: 'retry-pipeline' }) });

export interface Step {
  readonly event: ScenarioEvent;
  /** Expected status of every job, retried attempts included. */
  readonly jobs: Readonly<Record<string, JobStatus>>;
  readonly pipeline: PipelineStatus;
  readonly warnings?: boolean;
  /** Clock for this step, epoch ms (default: the previous step's, starting at 0). */
  readonly now?: number;
}

/** A step whose event the rules refuse with an HTTP status; the state stays as it was. */
export interface RefusedStep {
  readonly event: ScenarioEvent;
  readonly refusedWith: number;
  readonly now?: number;
}

export interface ScenarioOutcome {
  readonly state: PipelineState;
  readonly results: readonly EventResult[];
}

export function runScenario(initial: PipelineState, steps: readonly (Step | RefusedStep)[]): ScenarioOutcome {
  let state = initial;
  let now = 0;
  const results: EventResult[] = [];
  steps.forEach((step, position) => {
    now = step.now ?? now;
    const where = `step ${position + 1} (${step.event.label})`;
    const event = step.event.build(state);
    if ('refusedWith' in step) {
      assert.throws(() => handleEvent(state, event, { now }), (error: unknown) => {
        assert.ok(isGantryErrorWithStatus(error, step.refusedWith), `${where}: expected HTTP ${step.refusedWith}, got ${String(error)}`);
        return true;
      });
      return;
    }
    const result = handleEvent(state, event, { now });
    checkChangesAreConsistent(state, result, where);
    assert.deepEqual(statusesByLabel(result.jobs), step.jobs, `${where}: job statuses`);
    assert.equal(result.pipelineStatus, step.pipeline, `${where}: pipeline status`);
    if (step.warnings !== undefined) assert.equal(result.hasWarnings, step.warnings, `${where}: warnings`);
    results.push(result);
    state = { status: result.pipelineStatus, jobs: result.jobs };
  });
  return { state, results };
}

/** The changes replay to the same jobs, and every status change is reachable by the state machine. */
function checkChangesAreConsistent(before: PipelineState, result: EventResult, where: string): void {
  assert.deepEqual(applyChanges(before.jobs, result.changes), result.jobs, `${where}: applyChanges`);
  for (const change of result.changes) {
    if (change.kind !== 'update' || change.patch.status === undefined) continue;
    const from = change.previousStatus;
    const to = change.patch.status;
    // One event may take a job through two transitions: a reset (skipped → created → pending)
    // or an external status reported running (created → pending → running).
    const viaIntermediateStatus = JOB_STATUSES.some((middle) => canTransition(from, middle) && canTransition(middle, to));
    assert.ok(canTransition(from, to) || viaIntermediateStatus, `${where}: job ${change.jobId} ${from} -> ${to}`);
  }
  assert.equal(result.jobs.length - before.jobs.length, result.changes.filter((c) => c.kind === 'create').length);
}

export function statusesByLabel(jobs: readonly PipelineJob[]): Record<string, JobStatus> {
  const attempts = new Map<string, number>();
  const labels: Record<string, JobStatus> = {};
  for (const job of [...jobs].sort((a, b) => a.id - b.id)) {
    let label = job.name;
    if (job.retried) {
      const attempt = (attempts.get(job.name) ?? 0) + 1;
      attempts.set(job.name, attempt);
      label = `${job.name}#${attempt}`;
    }
    if (label in labels) throw new Error(`two latest jobs named ${job.name}`);
    labels[label] = job.status;
  }
  return labels;
}

export function jobNamed(state: PipelineState, name: string): PipelineJob {
  const job = state.jobs.find((candidate) => candidate.name === name && !candidate.retried);
  if (!job) throw new Error(`no latest job named ${name}`);
  return job;
}
