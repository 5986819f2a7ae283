/** Cancel (§6), status reports and their legality (§3.2), external statuses (§9). */
import { describe, it } from 'node:test';
import { answeredWith } from '../helpers/api-answer.ts';
import assert from 'node:assert/strict';
import { handleEvent } from '../../src/pipeline/index.ts';
import {
  cancel,
  cancelPipeline,
  fail,
  pipelineOf,
  process,
  report,
  runScenario,
  start,
  succeed,
} from './scenario.ts';

const STAGES = ['build', 'test', 'deploy'];

describe('cancel', () => {
  it('cancels created, pending and running jobs; finished and manual jobs keep their status', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'review', stage: 'build', when: 'manual' },
        { name: 'unit', stage: 'test' },
        { name: 'lint', stage: 'test' },
        { name: 'cleanup', stage: 'test', when: 'on_failure' },
        { name: 'ship', stage: 'deploy' },
      ]),
      [
        {
          event: process(),
          jobs: { compile: 'pending', review: 'manual', unit: 'created', lint: 'created', cleanup: 'created', ship: 'created' },
          pipeline: 'pending',
        },
        {
          event: succeed('compile'),
          jobs: { compile: 'success', review: 'manual', unit: 'pending', lint: 'pending', cleanup: 'skipped', ship: 'created' },
          pipeline: 'running',
        },
        {
          event: start('unit'),
          jobs: { compile: 'success', review: 'manual', unit: 'running', lint: 'pending', cleanup: 'skipped', ship: 'created' },
          pipeline: 'running',
        },
        {
          event: cancelPipeline(),
          jobs: { compile: 'success', review: 'manual', unit: 'canceled', lint: 'canceled', cleanup: 'skipped', ship: 'canceled' },
          pipeline: 'canceled',
        },
      ],
    );
  });

  it('a pipeline that already failed stays failed after cancel ({failed, canceled} → failed)', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'a', stage: 'build' },
        { name: 'b', stage: 'build' },
        { name: 'ship', stage: 'deploy' },
      ]),
      [
        { event: process(), jobs: { a: 'pending', b: 'pending', ship: 'created' }, pipeline: 'pending' },
        { event: fail('a'), jobs: { a: 'failed', b: 'pending', ship: 'created' }, pipeline: 'running' },
        { event: cancelPipeline(), jobs: { a: 'failed', b: 'canceled', ship: 'canceled' }, pipeline: 'failed' },
      ],
    );
  });

  it('cancel leaves a blocking manual job, so the pipeline stays blocked', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'approve', stage: 'build', when: 'manual', allowFailure: false },
        { name: 'ship', stage: 'deploy' },
      ]),
      [
        { event: process(), jobs: { approve: 'manual', ship: 'created' }, pipeline: 'manual' },
        { event: cancelPipeline(), jobs: { approve: 'manual', ship: 'canceled' }, pipeline: 'manual' },
      ],
    );
  });

  it('canceling one job lets processing skip what follows', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'notify', stage: 'test', when: 'always' },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', notify: 'created' }, pipeline: 'pending' },
        { event: cancel('compile'), jobs: { compile: 'canceled', notify: 'skipped' }, pipeline: 'canceled' },
      ],
    );
  });

  it('canceling a job that is not cancelable changes nothing', () => {
    const { results } = runScenario(pipelineOf(STAGES, [{ name: 'review', stage: 'build', when: 'manual' }, { name: 'a', stage: 'build' }]), [
      { event: process(), jobs: { review: 'manual', a: 'pending' }, pipeline: 'pending' },
      { event: succeed('a'), jobs: { review: 'manual', a: 'success' }, pipeline: 'success' },
      { event: cancel('a'), jobs: { review: 'manual', a: 'success' }, pipeline: 'success' },
      { event: cancel('review'), jobs: { review: 'manual', a: 'success' }, pipeline: 'success' },
    ]);
    assert.deepEqual(results[2].changes, []);
    assert.equal(results[2].resultJob?.name, 'a');
  });
});

describe('status reports', () => {
  it('refuses impossible transitions with the state-machine 400', () => {
    runScenario(pipelineOf(STAGES, [{ name: 'a', stage: 'build' }, { name: 'z', stage: 'deploy' }]), [
      { event: process(), jobs: { a: 'pending', z: 'created' }, pipeline: 'pending' },
      { event: start('z'), refusedWith: 400 },
      { event: succeed('a'), jobs: { a: 'success', z: 'pending' }, pipeline: 'running' },
      { event: succeed('a'), refusedWith: 400 },
      { event: fail('a'), refusedWith: 400 },
      { event: report('a', 'pending'), refusedWith: 400 },
      { event: report('z', 'skipped'), jobs: { a: 'success', z: 'skipped' }, pipeline: 'success' },
    ]);
    const state = pipelineOf(STAGES, [{ name: 'a', stage: 'build' }]);
    const done = { status: 'success' as const, jobs: [{ ...state.jobs[0], status: 'success' as const }] };
    assert.throws(() => handleEvent(done, { type: 'job-status', jobId: 1, status: 'running' }, { now: 0 }), answeredWith(400, 'Cannot transition status via :run from :success (Reason(s): Status cannot transition via "run")'));
    assert.throws(() => handleEvent(done, { type: 'job-status', jobId: 99, status: 'running' }, { now: 0 }), answeredWith(404, '404 Job Not Found'));
  });

  it('records the failure reason and clears nothing else', () => {
    const { results } = runScenario(pipelineOf(STAGES, [{ name: 'a', stage: 'build' }]), [
      { event: process(), jobs: { a: 'pending' }, pipeline: 'pending' },
      { event: start('a'), jobs: { a: 'running' }, pipeline: 'running' },
      { event: fail('a', 'job_execution_timeout'), jobs: { a: 'failed' }, pipeline: 'failed' },
    ]);
    assert.deepEqual(results[2].changes, [
      { kind: 'update', jobId: 1, previousStatus: 'running', patch: { status: 'failed', failureReason: 'job_execution_timeout' } },
    ]);
    assert.equal(results[2].pipelineStatusChanged, true);
  });

  it('a runner may report success or failure for a pending job (created/pending/running → success)', () => {
    runScenario(pipelineOf(STAGES, [{ name: 'a', stage: 'build' }, { name: 'b', stage: 'build' }]), [
      { event: process(), jobs: { a: 'pending', b: 'pending' }, pipeline: 'pending' },
      { event: succeed('a'), jobs: { a: 'success', b: 'pending' }, pipeline: 'running' },
      { event: report('b', 'canceled'), jobs: { a: 'success', b: 'canceled' }, pipeline: 'canceled' },
    ]);
  });
});

describe('external commit statuses (§9)', () => {
  it('are counted but never processed; running enqueues then runs; failed means api_failure', () => {
    const { state } = runScenario(
      pipelineOf(['build', 'external'], [
        { name: 'compile', stage: 'build' },
        { name: 'ci/other', stage: 'external', external: true, retry: 2 },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', 'ci/other': 'created' }, pipeline: 'pending' },
        { event: succeed('compile'), jobs: { compile: 'success', 'ci/other': 'created' }, pipeline: 'running' },
        { event: report('ci/other', 'running'), jobs: { compile: 'success', 'ci/other': 'running' }, pipeline: 'running' },
        { event: fail('ci/other', 'script_failure'), jobs: { compile: 'success', 'ci/other': 'failed' }, pipeline: 'failed' },
      ],
    );
    assert.equal(state.jobs[1].failureReason, 'api_failure');
  });
});
