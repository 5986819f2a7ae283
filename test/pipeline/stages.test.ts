/** Stage-ordered processing (§4.1, §4.3, §4.4, §4.6). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { handleEvent } from '../../src/pipeline/index.ts';
import { cancel, fail, pipelineOf, play, process, runScenario, start, succeed } from './scenario.ts';

const STAGES = ['build', 'test', 'deploy'];

describe('stage processing', () => {
  it('runs stages in order and succeeds', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'unit', stage: 'test' },
        { name: 'lint', stage: 'test' },
        { name: 'ship', stage: 'deploy' },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', unit: 'created', lint: 'created', ship: 'created' }, pipeline: 'pending' },
        { event: start('compile'), jobs: { compile: 'running', unit: 'created', lint: 'created', ship: 'created' }, pipeline: 'running' },
        { event: succeed('compile'), jobs: { compile: 'success', unit: 'pending', lint: 'pending', ship: 'created' }, pipeline: 'running' },
        { event: start('unit'), jobs: { compile: 'success', unit: 'running', lint: 'pending', ship: 'created' }, pipeline: 'running' },
        { event: succeed('unit'), jobs: { compile: 'success', unit: 'success', lint: 'pending', ship: 'created' }, pipeline: 'running' },
        { event: succeed('lint'), jobs: { compile: 'success', unit: 'success', lint: 'success', ship: 'pending' }, pipeline: 'running' },
        { event: succeed('ship'), jobs: { compile: 'success', unit: 'success', lint: 'success', ship: 'success' }, pipeline: 'success', warnings: false },
      ],
    );
  });

  it('after a failure skips on_success jobs and runs on_failure and always jobs', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'unit', stage: 'test' },
        { name: 'cleanup', stage: 'test', when: 'on_failure' },
        { name: 'notify', stage: 'test', when: 'always' },
        { name: 'ship', stage: 'deploy' },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', unit: 'created', cleanup: 'created', notify: 'created', ship: 'created' }, pipeline: 'pending' },
        { event: fail('compile'), jobs: { compile: 'failed', unit: 'skipped', cleanup: 'pending', notify: 'pending', ship: 'created' }, pipeline: 'running' },
        { event: succeed('cleanup'), jobs: { compile: 'failed', unit: 'skipped', cleanup: 'success', notify: 'pending', ship: 'created' }, pipeline: 'running' },
        { event: succeed('notify'), jobs: { compile: 'failed', unit: 'skipped', cleanup: 'success', notify: 'success', ship: 'skipped' }, pipeline: 'failed' },
      ],
    );
  });

  it('when everything passes skips on_failure jobs and still runs always jobs', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'cleanup', stage: 'test', when: 'on_failure' },
        { name: 'notify', stage: 'deploy', when: 'always' },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', cleanup: 'created', notify: 'created' }, pipeline: 'pending' },
        // The skipped stage counts as passed for the next one.
        { event: succeed('compile'), jobs: { compile: 'success', cleanup: 'skipped', notify: 'pending' }, pipeline: 'running' },
        { event: succeed('notify'), jobs: { compile: 'success', cleanup: 'skipped', notify: 'success' }, pipeline: 'success' },
      ],
    );
  });

  it('skips even always and on_failure jobs after a canceled prior job', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'unit', stage: 'test' },
        { name: 'cleanup', stage: 'test', when: 'on_failure' },
        { name: 'notify', stage: 'deploy', when: 'always' },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', unit: 'created', cleanup: 'created', notify: 'created' }, pipeline: 'pending' },
        { event: start('compile'), jobs: { compile: 'running', unit: 'created', cleanup: 'created', notify: 'created' }, pipeline: 'running' },
        { event: cancel('compile'), jobs: { compile: 'canceled', unit: 'skipped', cleanup: 'skipped', notify: 'skipped' }, pipeline: 'canceled' },
      ],
    );
  });

  it('lets an allowed failure pass with warnings: later stages run, on_failure jobs are skipped', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'flaky', stage: 'build', allowFailure: true },
        { name: 'cleanup', stage: 'test', when: 'on_failure' },
        { name: 'ship', stage: 'deploy' },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', flaky: 'pending', cleanup: 'created', ship: 'created' }, pipeline: 'pending' },
        { event: fail('flaky'), jobs: { compile: 'pending', flaky: 'failed', cleanup: 'created', ship: 'created' }, pipeline: 'pending', warnings: true },
        { event: succeed('compile'), jobs: { compile: 'success', flaky: 'failed', cleanup: 'skipped', ship: 'pending' }, pipeline: 'running' },
        { event: succeed('ship'), jobs: { compile: 'success', flaky: 'failed', cleanup: 'skipped', ship: 'success' }, pipeline: 'success', warnings: true },
      ],
    );
  });

  it('an allowed cancel also only warns', () => {
    const { results } = runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'optional', stage: 'build', allowFailure: true },
        { name: 'ship', stage: 'deploy' },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', optional: 'pending', ship: 'created' }, pipeline: 'pending' },
        { event: cancel('optional'), jobs: { compile: 'pending', optional: 'canceled', ship: 'created' }, pipeline: 'pending' },
        { event: succeed('compile'), jobs: { compile: 'success', optional: 'canceled', ship: 'pending' }, pipeline: 'running' },
        { event: succeed('ship'), jobs: { compile: 'success', optional: 'canceled', ship: 'success' }, pipeline: 'success', warnings: true },
      ],
    );
    const buildStage = results.at(-1)?.stages.find((stage) => stage.name === 'build');
    assert.deepEqual(buildStage, { stageIdx: 0, name: 'build', status: 'success', hasWarnings: true });
  });

  it('lets jobs already running in a stage finish after a failure, then skips the next stage', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'a', stage: 'build' },
        { name: 'b', stage: 'build' },
        { name: 'ship', stage: 'deploy' },
      ]),
      [
        { event: process(), jobs: { a: 'pending', b: 'pending', ship: 'created' }, pipeline: 'pending' },
        { event: start('b'), jobs: { a: 'pending', b: 'running', ship: 'created' }, pipeline: 'running' },
        { event: fail('a'), jobs: { a: 'failed', b: 'running', ship: 'created' }, pipeline: 'running' },
        { event: succeed('b'), jobs: { a: 'failed', b: 'success', ship: 'skipped' }, pipeline: 'failed' },
      ],
    );
  });

  it('processing is idempotent and does not mutate its input', () => {
    const initial = pipelineOf(STAGES, [
      { name: 'compile', stage: 'build' },
      { name: 'ship', stage: 'deploy' },
    ]);
    for (const job of initial.jobs) Object.freeze(job);
    Object.freeze(initial.jobs);
    const first = handleEvent(initial, { type: 'process' }, { now: 0 });
    assert.equal(initial.jobs[0].status, 'created');
    const second = handleEvent({ status: first.pipelineStatus, jobs: first.jobs }, { type: 'process' }, { now: 0 });
    assert.deepEqual(second.changes, []);
    assert.equal(second.pipelineStatusChanged, false);
  });
});

describe('manual jobs (§4.4)', () => {
  it('an optional manual job does not block later stages; the pipeline can succeed without it', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'review', stage: 'test', when: 'manual' },
        { name: 'ship', stage: 'deploy' },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', review: 'created', ship: 'created' }, pipeline: 'pending' },
        { event: succeed('compile'), jobs: { compile: 'success', review: 'manual', ship: 'pending' }, pipeline: 'running' },
        { event: succeed('ship'), jobs: { compile: 'success', review: 'manual', ship: 'success' }, pipeline: 'success', warnings: false },
        { event: play('review'), jobs: { compile: 'success', review: 'pending', ship: 'success' }, pipeline: 'running' },
        { event: succeed('review'), jobs: { compile: 'success', review: 'success', ship: 'success' }, pipeline: 'success' },
      ],
    );
  });

  it('playing a manual job late makes skipped jobs of later stages processable again', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'review', stage: 'build', when: 'manual' },
        { name: 'cleanup', stage: 'test', when: 'on_failure' },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', review: 'manual', cleanup: 'created' }, pipeline: 'pending' },
        { event: succeed('compile'), jobs: { compile: 'success', review: 'manual', cleanup: 'skipped' }, pipeline: 'success' },
        { event: play('review'), jobs: { compile: 'success', review: 'pending', cleanup: 'created' }, pipeline: 'running' },
        { event: succeed('review'), jobs: { compile: 'success', review: 'success', cleanup: 'skipped' }, pipeline: 'success' },
      ],
    );
  });

  it('a blocking manual job holds later stages and blocks the pipeline until played', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'approve', stage: 'test', when: 'manual', allowFailure: false },
        { name: 'ship', stage: 'deploy' },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', approve: 'created', ship: 'created' }, pipeline: 'pending' },
        { event: succeed('compile'), jobs: { compile: 'success', approve: 'manual', ship: 'created' }, pipeline: 'manual' },
        { event: play('approve'), jobs: { compile: 'success', approve: 'pending', ship: 'created' }, pipeline: 'running' },
        { event: succeed('approve'), jobs: { compile: 'success', approve: 'success', ship: 'pending' }, pipeline: 'running' },
        { event: succeed('ship'), jobs: { compile: 'success', approve: 'success', ship: 'success' }, pipeline: 'success' },
      ],
    );
  });

  it('a manual job whose prior failed is skipped, never manual', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'review', stage: 'test', when: 'manual' },
        { name: 'approve', stage: 'test', when: 'manual', allowFailure: false },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', review: 'created', approve: 'created' }, pipeline: 'pending' },
        { event: fail('compile'), jobs: { compile: 'failed', review: 'skipped', approve: 'skipped' }, pipeline: 'failed' },
      ],
    );
  });

  it('a pipeline of only optional manual jobs is skipped', () => {
    runScenario(pipelineOf(STAGES, [{ name: 'review', stage: 'test', when: 'manual' }]), [
      { event: process(), jobs: { review: 'manual' }, pipeline: 'skipped' },
      { event: play('review'), jobs: { review: 'pending' }, pipeline: 'pending' },
      { event: succeed('review'), jobs: { review: 'success' }, pipeline: 'success' },
    ]);
  });

  it('a failure next to a blocking manual job leaves the pipeline manual (rule 11 before failed)', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'approve', stage: 'build', when: 'manual', allowFailure: false },
        { name: 'ship', stage: 'deploy' },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', approve: 'manual', ship: 'created' }, pipeline: 'running' },
        { event: fail('compile'), jobs: { compile: 'failed', approve: 'manual', ship: 'created' }, pipeline: 'manual' },
        { event: play('approve'), jobs: { compile: 'failed', approve: 'pending', ship: 'created' }, pipeline: 'running' },
        { event: succeed('approve'), jobs: { compile: 'failed', approve: 'success', ship: 'skipped' }, pipeline: 'failed' },
      ],
    );
  });
});
