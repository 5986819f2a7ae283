/** `needs` (DAG) processing (§4.1 DAG column, §4.5). */
import { describe, it } from 'node:test';
import { fail, pipelineOf, play, process, runScenario, start, succeed } from './scenario.ts';

const STAGES = ['build', 'test', 'deploy'];

describe('needs (DAG)', () => {
  it('needs: [] starts at once, whatever the stage', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'lint', stage: 'test', needs: [] },
        { name: 'ship', stage: 'deploy' },
      ]),
      [{ event: process(), jobs: { compile: 'pending', lint: 'pending', ship: 'created' }, pipeline: 'pending' }],
    );
  });

  it('a DAG job waits only for what it needs, and stage jobs still wait for every earlier stage', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'slow', stage: 'test' },
        { name: 'preview', stage: 'deploy', needs: ['compile'] },
        { name: 'ship', stage: 'deploy' },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', slow: 'created', preview: 'created', ship: 'created' }, pipeline: 'pending' },
        { event: start('compile'), jobs: { compile: 'running', slow: 'created', preview: 'created', ship: 'created' }, pipeline: 'running' },
        { event: succeed('compile'), jobs: { compile: 'success', slow: 'pending', preview: 'pending', ship: 'created' }, pipeline: 'running' },
        { event: succeed('slow'), jobs: { compile: 'success', slow: 'success', preview: 'pending', ship: 'pending' }, pipeline: 'running' },
        { event: succeed('ship'), jobs: { compile: 'success', slow: 'success', preview: 'pending', ship: 'success' }, pipeline: 'running' },
        { event: succeed('preview'), jobs: { compile: 'success', slow: 'success', preview: 'success', ship: 'success' }, pipeline: 'success' },
      ],
    );
  });

  it('a failed need skips on_success DAG jobs and runs on_failure and always ones', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'other', stage: 'build' },
        { name: 'unit', stage: 'test', needs: ['compile'] },
        { name: 'report', stage: 'test', needs: ['compile'], when: 'on_failure' },
        { name: 'notify', stage: 'test', needs: ['compile'], when: 'always' },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', other: 'pending', unit: 'created', report: 'created', notify: 'created' }, pipeline: 'pending' },
        { event: fail('compile'), jobs: { compile: 'failed', other: 'pending', unit: 'skipped', report: 'pending', notify: 'pending' }, pipeline: 'running' },
      ],
    );
  });

  it('an allowed failure of a need counts as success for the DAG job', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'flaky', stage: 'build', allowFailure: true },
        { name: 'unit', stage: 'test', needs: ['flaky'] },
      ]),
      [
        { event: process(), jobs: { flaky: 'pending', unit: 'created' }, pipeline: 'pending' },
        { event: fail('flaky'), jobs: { flaky: 'failed', unit: 'pending' }, pipeline: 'pending', warnings: true },
      ],
    );
  });

  it('a skipped need skips an on_success DAG job (dag composite) but not an always one', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'rescue', stage: 'build', when: 'on_failure', needs: [] },
        { name: 'after-rescue', stage: 'test', needs: ['rescue'] },
        { name: 'always-after', stage: 'test', needs: ['rescue'], when: 'always' },
      ]),
      [
        {
          event: process(),
          jobs: { compile: 'pending', rescue: 'skipped', 'after-rescue': 'skipped', 'always-after': 'pending' },
          pipeline: 'pending',
        },
      ],
    );
  });

  it('needing an optional manual job skips the DAG job until the manual job is played', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'review', stage: 'build', when: 'manual' },
        { name: 'publish', stage: 'deploy', needs: ['review'] },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', review: 'manual', publish: 'skipped' }, pipeline: 'pending' },
        { event: succeed('compile'), jobs: { compile: 'success', review: 'manual', publish: 'skipped' }, pipeline: 'success' },
        // Playing makes the skipped dependent processable again; it waits for the played job.
        { event: play('review'), jobs: { compile: 'success', review: 'pending', publish: 'created' }, pipeline: 'running' },
        { event: succeed('review'), jobs: { compile: 'success', review: 'success', publish: 'pending' }, pipeline: 'running' },
        { event: succeed('publish'), jobs: { compile: 'success', review: 'success', publish: 'success' }, pipeline: 'success' },
      ],
    );
  });

  it('needing a blocking manual job makes the DAG job wait', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'approve', stage: 'build', when: 'manual', allowFailure: false },
        { name: 'ship', stage: 'deploy', needs: ['approve'] },
      ]),
      [
        { event: process(), jobs: { approve: 'manual', ship: 'created' }, pipeline: 'manual' },
        { event: play('approve'), jobs: { approve: 'pending', ship: 'created' }, pipeline: 'pending' },
        { event: succeed('approve'), jobs: { approve: 'success', ship: 'pending' }, pipeline: 'running' },
      ],
    );
  });

  it('orders same-stage needs topologically, whatever the input order, in one event', () => {
    runScenario(
      pipelineOf(['test'], [
        { name: 'third', stage: 'test', needs: ['second'], when: 'always' },
        { name: 'second', stage: 'test', needs: ['first'] },
        { name: 'first', stage: 'test', needs: [], when: 'on_failure' },
      ]),
      [{ event: process(), jobs: { third: 'pending', second: 'skipped', first: 'skipped' }, pipeline: 'pending' }],
    );
  });

  it('chains same-stage needs as each one succeeds', () => {
    runScenario(
      pipelineOf(['test'], [
        { name: 'b', stage: 'test', needs: ['a'] },
        { name: 'a', stage: 'test' },
      ]),
      [
        { event: process(), jobs: { a: 'pending', b: 'created' }, pipeline: 'pending' },
        { event: succeed('a'), jobs: { a: 'success', b: 'pending' }, pipeline: 'running' },
      ],
    );
  });

  it('leaves out needs that are not in the pipeline (needs:optional)', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'unit', stage: 'test', needs: [{ name: 'docs', optional: true }] },
        { name: 'package', stage: 'deploy', needs: ['compile', { name: 'docs', optional: true }] },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', unit: 'pending', package: 'created' }, pipeline: 'pending' },
        { event: succeed('compile'), jobs: { compile: 'success', unit: 'pending', package: 'pending' }, pipeline: 'running' },
      ],
    );
  });

  it('a need on a later stage (rejected by the compiler) is still resolved', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'early', stage: 'build', needs: ['late'] },
        { name: 'late', stage: 'deploy', needs: [] },
      ]),
      [
        { event: process(), jobs: { early: 'created', late: 'pending' }, pipeline: 'pending' },
        { event: succeed('late'), jobs: { early: 'pending', late: 'success' }, pipeline: 'running' },
      ],
    );
  });
});
