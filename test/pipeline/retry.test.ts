/** Job retry, automatic retry and pipeline retry (§3.2, §6). */
import { describe, it } from 'node:test';
import { answeredWith } from '../helpers/api-answer.ts';
import assert from 'node:assert/strict';
import { handleEvent } from '../../src/pipeline/index.ts';
import {
  cancelPipeline,
  fail,
  failWithExitCode,
  jobNamed,
  pipelineOf,
  play,
  process,
  retry,
  retryPipeline,
  runScenario,
  start,
  succeed,
} from './scenario.ts';

const STAGES = ['build', 'test', 'deploy'];

describe('job retry', () => {
  it('creates a new pending job, marks the old one retried and makes later skipped jobs processable', () => {
    const { results } = runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'unit', stage: 'test' },
        { name: 'ship', stage: 'deploy' },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', unit: 'created', ship: 'created' }, pipeline: 'pending' },
        { event: fail('compile'), jobs: { compile: 'failed', unit: 'skipped', ship: 'skipped' }, pipeline: 'failed' },
        { event: retry('compile'), jobs: { 'compile#1': 'failed', compile: 'pending', unit: 'created', ship: 'created' }, pipeline: 'running' },
        { event: succeed('compile'), jobs: { 'compile#1': 'failed', compile: 'success', unit: 'pending', ship: 'created' }, pipeline: 'running' },
        { event: succeed('unit'), jobs: { 'compile#1': 'failed', compile: 'success', unit: 'success', ship: 'pending' }, pipeline: 'running' },
        { event: succeed('ship'), jobs: { 'compile#1': 'failed', compile: 'success', unit: 'success', ship: 'success' }, pipeline: 'success' },
      ],
    );
    const retryResult = results[2];
    const creation = retryResult.changes.find((change) => change.kind === 'create');
    assert.ok(creation && creation.kind === 'create');
    assert.equal(creation.cloneOf, 1);
    assert.equal(creation.job.status, 'pending');
    assert.equal(creation.job.retried, false);
    assert.equal(creation.job.failureReason, null);
    assert.equal(retryResult.resultJob?.id, creation.job.id);
    assert.deepEqual(
      retryResult.changes.find((change) => change.kind === 'update' && change.jobId === 1),
      { kind: 'update', jobId: 1, previousStatus: 'failed', patch: { retried: true } },
    );
  });

  it('enqueues a retried manual job at once', () => {
    runScenario(pipelineOf(STAGES, [{ name: 'deploy-it', stage: 'deploy', when: 'manual' }]), [
      { event: process(), jobs: { 'deploy-it': 'manual' }, pipeline: 'skipped' },
      { event: play('deploy-it'), jobs: { 'deploy-it': 'pending' }, pipeline: 'pending' },
      { event: succeed('deploy-it'), jobs: { 'deploy-it': 'success' }, pipeline: 'success' },
      { event: retry('deploy-it'), jobs: { 'deploy-it#1': 'success', 'deploy-it': 'pending' }, pipeline: 'running' },
    ]);
  });

  it('re-evaluates reset jobs: an on_failure job skipped before is skipped again once the retry passes', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'cleanup', stage: 'test', when: 'on_failure' },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', cleanup: 'created' }, pipeline: 'pending' },
        { event: succeed('compile'), jobs: { compile: 'success', cleanup: 'skipped' }, pipeline: 'success' },
        { event: retry('compile'), jobs: { 'compile#1': 'success', compile: 'pending', cleanup: 'created' }, pipeline: 'running' },
        { event: fail('compile'), jobs: { 'compile#1': 'success', compile: 'failed', cleanup: 'pending' }, pipeline: 'running' },
      ],
    );
  });

  it('resets skipped DAG dependents of the retried job', () => {
    runScenario(
      pipelineOf(['test'], [
        { name: 'unit', stage: 'test' },
        { name: 'coverage', stage: 'test', needs: ['unit'] },
      ]),
      [
        { event: process(), jobs: { unit: 'pending', coverage: 'created' }, pipeline: 'pending' },
        { event: fail('unit'), jobs: { unit: 'failed', coverage: 'skipped' }, pipeline: 'failed' },
        { event: retry('unit'), jobs: { 'unit#1': 'failed', unit: 'pending', coverage: 'created' }, pipeline: 'running' },
        { event: succeed('unit'), jobs: { 'unit#1': 'failed', unit: 'success', coverage: 'pending' }, pipeline: 'running' },
      ],
    );
  });

  it('refuses with 403 a job that is not finished or was already retried', () => {
    runScenario(pipelineOf(STAGES, [{ name: 'compile', stage: 'build' }]), [
      { event: process(), jobs: { compile: 'pending' }, pipeline: 'pending' },
      { event: retry('compile'), refusedWith: 403 },
      { event: start('compile'), jobs: { compile: 'running' }, pipeline: 'running' },
      { event: retry('compile'), refusedWith: 403 },
      { event: succeed('compile'), jobs: { compile: 'success' }, pipeline: 'success' },
      { event: retry('compile'), jobs: { 'compile#1': 'success', compile: 'pending' }, pipeline: 'running' },
    ]);
    const initial = pipelineOf(STAGES, [{ name: 'compile', stage: 'build' }]);
    const retriedJob = { ...initial.jobs[0], status: 'failed' as const, retried: true };
    assert.throws(
      () => handleEvent({ status: 'failed', jobs: [retriedJob] }, { type: 'retry-job', jobId: retriedJob.id }, { now: 0 }),
      answeredWith(403, '403 Forbidden - Job is not retryable'),
    );
  });

  it('uses allocateJobId for the new job', () => {
    const initial = pipelineOf(STAGES, [{ name: 'compile', stage: 'build' }]);
    const failed = { status: 'failed' as const, jobs: [{ ...initial.jobs[0], status: 'failed' as const }] };
    const result = handleEvent(failed, { type: 'retry-job', jobId: 1 }, { now: 0, allocateJobId: () => 500 });
    assert.equal(result.resultJob?.id, 500);
  });
});

describe('automatic retry (retry:max / retry:when)', () => {
  it('retry: 2 allows three runs in all', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build', retry: 2 },
        { name: 'unit', stage: 'test' },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', unit: 'created' }, pipeline: 'pending' },
        { event: fail('compile'), jobs: { 'compile#1': 'failed', compile: 'pending', unit: 'created' }, pipeline: 'pending' },
        { event: fail('compile'), jobs: { 'compile#1': 'failed', 'compile#2': 'failed', compile: 'pending', unit: 'created' }, pipeline: 'pending' },
        {
          event: fail('compile'),
          jobs: { 'compile#1': 'failed', 'compile#2': 'failed', compile: 'failed', unit: 'skipped' },
          pipeline: 'failed',
        },
      ],
    );
  });

  it('retries only for the failure reasons listed in retry:when', () => {
    const onRunnerFailure = { max: 1, when: ['runner_system_failure' as const] };
    runScenario(
      pipelineOf(STAGES, [
        { name: 'a', stage: 'build', retry: onRunnerFailure },
        { name: 'b', stage: 'build', retry: onRunnerFailure },
      ]),
      [
        { event: process(), jobs: { a: 'pending', b: 'pending' }, pipeline: 'pending' },
        { event: fail('a', 'script_failure'), jobs: { a: 'failed', b: 'pending' }, pipeline: 'running' },
        { event: fail('b', 'runner_system_failure'), jobs: { a: 'failed', 'b#1': 'failed', b: 'pending' }, pipeline: 'running' },
      ],
    );
  });

  it('retries a script that exited with one of retry:exit_codes, and no other exit code', () => {
    // As the compiler gives `retry: {max: 2, exit_codes: [137]}`: no `when`, so no `always`.
    const onKilled = { max: 2, when: [], exitCodes: [137] };
    runScenario(
      pipelineOf(STAGES, [
        { name: 'a', stage: 'build', retry: onKilled },
        { name: 'b', stage: 'build', retry: onKilled },
      ]),
      [
        { event: process(), jobs: { a: 'pending', b: 'pending' }, pipeline: 'pending' },
        { event: failWithExitCode('a', 137), jobs: { 'a#1': 'failed', a: 'pending', b: 'pending' }, pipeline: 'pending' },
        { event: failWithExitCode('b', 1), jobs: { 'a#1': 'failed', a: 'pending', b: 'failed' }, pipeline: 'running' },
        { event: fail('a'), jobs: { 'a#1': 'failed', a: 'failed', b: 'failed' }, pipeline: 'failed' },
      ],
    );
  });

  it('retries on either retry:when or retry:exit_codes when both are given', () => {
    const either = { max: 1, when: ['runner_system_failure' as const], exitCodes: [137] };
    runScenario(
      pipelineOf(STAGES, [
        { name: 'a', stage: 'build', retry: either },
        { name: 'b', stage: 'build', retry: either },
      ]),
      [
        { event: process(), jobs: { a: 'pending', b: 'pending' }, pipeline: 'pending' },
        { event: failWithExitCode('a', 1, 'runner_system_failure'), jobs: { 'a#1': 'failed', a: 'pending', b: 'pending' }, pipeline: 'pending' },
        { event: failWithExitCode('b', 137), jobs: { 'a#1': 'failed', a: 'pending', 'b#1': 'failed', b: 'pending' }, pipeline: 'pending' },
      ],
    );
  });

  it('an unknown wire reason is unknown_failure and can be retried as such', () => {
    const { state } = runScenario(
      pipelineOf(STAGES, [{ name: 'a', stage: 'build', retry: { max: 1, when: ['unknown_failure'] } }]),
      [
        { event: process(), jobs: { a: 'pending' }, pipeline: 'pending' },
        { event: fail('a', 'job_canceled'), jobs: { 'a#1': 'failed', a: 'pending' }, pipeline: 'pending' },
      ],
    );
    assert.equal(state.jobs.find((job) => job.retried)?.failureReason, 'unknown_failure');
  });

  it('never retries a missing dependency, even with when: always', () => {
    runScenario(pipelineOf(STAGES, [{ name: 'a', stage: 'build', retry: 2 }]), [
      { event: process(), jobs: { a: 'pending' }, pipeline: 'pending' },
      { event: fail('a', 'missing_dependency_failure'), jobs: { a: 'failed' }, pipeline: 'failed' },
    ]);
  });

  it('retries a scheduler failure twice without any retry policy', () => {
    runScenario(pipelineOf(STAGES, [{ name: 'a', stage: 'build' }]), [
      { event: process(), jobs: { a: 'pending' }, pipeline: 'pending' },
      { event: fail('a', 'scheduler_failure'), jobs: { 'a#1': 'failed', a: 'pending' }, pipeline: 'pending' },
      { event: fail('a', 'scheduler_failure'), jobs: { 'a#1': 'failed', 'a#2': 'failed', a: 'pending' }, pipeline: 'pending' },
      { event: fail('a', 'scheduler_failure'), jobs: { 'a#1': 'failed', 'a#2': 'failed', a: 'failed' }, pipeline: 'failed' },
    ]);
  });

  it('counts user retries against the automatic budget', () => {
    runScenario(pipelineOf(STAGES, [{ name: 'a', stage: 'build', retry: 1 }]), [
      { event: process(), jobs: { a: 'pending' }, pipeline: 'pending' },
      { event: succeed('a'), jobs: { a: 'success' }, pipeline: 'success' },
      { event: retry('a'), jobs: { 'a#1': 'success', a: 'pending' }, pipeline: 'running' },
      { event: fail('a'), jobs: { 'a#1': 'success', a: 'failed' }, pipeline: 'failed' },
    ]);
  });
});

describe('pipeline retry', () => {
  it('clones failed jobs, resets skipped ones and leaves unplayed manual jobs alone', () => {
    const { state } = runScenario(
      pipelineOf(STAGES, [
        { name: 'a', stage: 'build' },
        { name: 'b', stage: 'build' },
        { name: 'review', stage: 'build', when: 'manual' },
        { name: 'unit', stage: 'test' },
        { name: 'ship', stage: 'deploy' },
      ]),
      [
        { event: process(), jobs: { a: 'pending', b: 'pending', review: 'manual', unit: 'created', ship: 'created' }, pipeline: 'pending' },
        { event: succeed('b'), jobs: { a: 'pending', b: 'success', review: 'manual', unit: 'created', ship: 'created' }, pipeline: 'running' },
        { event: fail('a'), jobs: { a: 'failed', b: 'success', review: 'manual', unit: 'skipped', ship: 'skipped' }, pipeline: 'failed' },
        // Only pending jobs, but a finished pipeline that is enqueued again shows running (§5.4).
        {
          event: retryPipeline(),
          jobs: { 'a#1': 'failed', a: 'pending', b: 'success', review: 'manual', unit: 'created', ship: 'created' },
          pipeline: 'running',
        },
        {
          event: succeed('a'),
          jobs: { 'a#1': 'failed', a: 'success', b: 'success', review: 'manual', unit: 'pending', ship: 'created' },
          pipeline: 'running',
        },
      ],
    );
    assert.equal(jobNamed(state, 'b').id, 2, 'successful jobs are not cloned');
  });

  it('clones canceled jobs; a canceled manual job comes back as manual', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'unit', stage: 'test' },
        { name: 'approve', stage: 'deploy', when: 'manual', allowFailure: false },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', unit: 'created', approve: 'created' }, pipeline: 'pending' },
        { event: succeed('compile'), jobs: { compile: 'success', unit: 'pending', approve: 'created' }, pipeline: 'running' },
        { event: cancelPipeline(), jobs: { compile: 'success', unit: 'canceled', approve: 'canceled' }, pipeline: 'canceled' },
        {
          event: retryPipeline(),
          jobs: { compile: 'success', 'unit#1': 'canceled', unit: 'pending', 'approve#1': 'canceled', approve: 'created' },
          pipeline: 'running',
        },
        {
          event: succeed('unit'),
          jobs: { compile: 'success', 'unit#1': 'canceled', unit: 'success', 'approve#1': 'canceled', approve: 'manual' },
          pipeline: 'manual',
        },
      ],
    );
  });

  it('is a no-op for a pipeline with nothing to retry', () => {
    runScenario(pipelineOf(STAGES, [{ name: 'a', stage: 'build' }]), [
      { event: process(), jobs: { a: 'pending' }, pipeline: 'pending' },
      { event: succeed('a'), jobs: { a: 'success' }, pipeline: 'success' },
      { event: retryPipeline(), jobs: { a: 'success' }, pipeline: 'success' },
    ]);
  });
});
