/** Playing manual jobs (§3.2 PlayBuildService) and delayed jobs (`scheduled`, §3.2, §4.1). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dueScheduledJobIds, nextScheduledAt } from '../../src/pipeline/index.ts';
import {
  cancel,
  fail,
  jobNamed,
  pipelineOf,
  play,
  process,
  report,
  runScenario,
  succeed,
  timeReached,
  unschedule,
} from './scenario.ts';

const STAGES = ['build', 'test', 'deploy'];
const MINUTE = 60_000;

describe('play', () => {
  it('playing a finished manual job retries it', () => {
    const { results } = runScenario(pipelineOf(STAGES, [{ name: 'ship', stage: 'deploy', when: 'manual' }]), [
      { event: process(), jobs: { ship: 'manual' }, pipeline: 'skipped' },
      { event: play('ship'), jobs: { ship: 'pending' }, pipeline: 'pending' },
      { event: fail('ship'), jobs: { ship: 'failed' }, pipeline: 'success', warnings: true },
      { event: play('ship'), jobs: { 'ship#1': 'failed', ship: 'pending' }, pipeline: 'running' },
    ]);
    const creation = results[3].changes.find((change) => change.kind === 'create');
    assert.equal(results[3].resultJob?.id, creation?.kind === 'create' ? creation.job.id : undefined);
  });

  it('refuses with 400 to play what is not a waiting or finished action', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'ship', stage: 'deploy', when: 'manual' },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', ship: 'created' }, pipeline: 'pending' },
        { event: play('compile'), refusedWith: 400 },
        { event: play('ship'), refusedWith: 400 },
        { event: succeed('compile'), jobs: { compile: 'success', ship: 'manual' }, pipeline: 'success' },
        { event: play('compile'), refusedWith: 400 },
        { event: play('ship'), jobs: { compile: 'success', ship: 'pending' }, pipeline: 'running' },
        { event: play('ship'), refusedWith: 400 },
      ],
    );
  });
});

describe('delayed jobs', () => {
  it('are scheduled at now + start_in, hold later stages, and are enqueued when due', () => {
    const { results } = runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'rollout', stage: 'test', when: 'delayed', startInSeconds: 30 * 60 },
        { name: 'verify', stage: 'deploy' },
      ]),
      [
        { event: process(), now: 0, jobs: { compile: 'pending', rollout: 'created', verify: 'created' }, pipeline: 'pending' },
        { event: succeed('compile'), now: MINUTE, jobs: { compile: 'success', rollout: 'scheduled', verify: 'created' }, pipeline: 'scheduled' },
        // A timer that fires early changes nothing.
        { event: timeReached('rollout'), now: 30 * MINUTE, jobs: { compile: 'success', rollout: 'scheduled', verify: 'created' }, pipeline: 'scheduled' },
        { event: timeReached('rollout'), now: 31 * MINUTE, jobs: { compile: 'success', rollout: 'pending', verify: 'created' }, pipeline: 'running' },
        { event: succeed('rollout'), jobs: { compile: 'success', rollout: 'success', verify: 'pending' }, pipeline: 'running' },
      ],
    );
    const scheduled = results[1].jobs.find((job) => job.name === 'rollout');
    assert.equal(scheduled?.scheduledAt, 31 * MINUTE);
    assert.deepEqual(dueScheduledJobIds(results[1].jobs, 31 * MINUTE - 1), []);
    assert.deepEqual(dueScheduledJobIds(results[1].jobs, 31 * MINUTE), [2]);
    assert.equal(nextScheduledAt(results[1].jobs), 31 * MINUTE);
    const enqueued = results[3].jobs.find((job) => job.name === 'rollout');
    assert.equal(enqueued?.scheduledAt, null, 'leaving scheduled clears scheduled_at');
    assert.equal(nextScheduledAt(results[3].jobs), null);
  });

  it('a delayed job can be played early, unscheduled into a manual job, or canceled', () => {
    const specs = [
      { name: 'early', stage: 'build', when: 'delayed' as const, startInSeconds: 600 },
      { name: 'held', stage: 'build', when: 'delayed' as const, startInSeconds: 600 },
      { name: 'dropped', stage: 'build', when: 'delayed' as const, startInSeconds: 600 },
    ];
    runScenario(pipelineOf(STAGES, specs), [
      { event: process(), jobs: { early: 'scheduled', held: 'scheduled', dropped: 'scheduled' }, pipeline: 'scheduled' },
      { event: play('early'), jobs: { early: 'pending', held: 'scheduled', dropped: 'scheduled' }, pipeline: 'running' },
      { event: unschedule('held'), jobs: { early: 'pending', held: 'manual', dropped: 'scheduled' }, pipeline: 'running' },
      { event: unschedule('held'), refusedWith: 400 },
      { event: cancel('dropped'), jobs: { early: 'pending', held: 'manual', dropped: 'canceled' }, pipeline: 'running' },
      { event: succeed('early'), jobs: { early: 'success', held: 'manual', dropped: 'canceled' }, pipeline: 'manual' },
      { event: play('held'), jobs: { early: 'success', held: 'pending', dropped: 'canceled' }, pipeline: 'running' },
    ]);
  });

  it('an unscheduled delayed job blocks the pipeline until played', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'held', stage: 'build', when: 'delayed', startInSeconds: 600 },
        { name: 'next', stage: 'test' },
      ]),
      [
        { event: process(), jobs: { held: 'scheduled', next: 'created' }, pipeline: 'scheduled' },
        { event: unschedule('held'), jobs: { held: 'manual', next: 'created' }, pipeline: 'manual' },
        { event: play('held'), jobs: { held: 'pending', next: 'created' }, pipeline: 'pending' },
        { event: succeed('held'), jobs: { held: 'success', next: 'pending' }, pipeline: 'running' },
      ],
    );
  });

  it('a scheduled job that never started can be dropped (stale_schedule)', () => {
    const { state } = runScenario(pipelineOf(STAGES, [{ name: 'later', stage: 'build', when: 'delayed', startInSeconds: 60 }]), [
      { event: process(), jobs: { later: 'scheduled' }, pipeline: 'scheduled' },
      { event: fail('later', 'stale_schedule'), jobs: { later: 'failed' }, pipeline: 'failed' },
    ]);
    assert.equal(jobNamed(state, 'later').failureReason, 'stale_schedule');
  });

  it('a delayed job after a failure is skipped', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'later', stage: 'test', when: 'delayed', startInSeconds: 60 },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', later: 'created' }, pipeline: 'pending' },
        { event: fail('compile'), jobs: { compile: 'failed', later: 'skipped' }, pipeline: 'failed' },
      ],
    );
  });

  it('an external status reported pending from manual or skipped revives the job', () => {
    runScenario(pipelineOf(STAGES, [{ name: 'review', stage: 'build', when: 'manual' }, { name: 'after', stage: 'test', needs: ['review'] }]), [
      { event: process(), jobs: { review: 'manual', after: 'skipped' }, pipeline: 'skipped' },
      { event: report('review', 'pending'), jobs: { review: 'pending', after: 'created' }, pipeline: 'pending' },
    ]);
  });
});
