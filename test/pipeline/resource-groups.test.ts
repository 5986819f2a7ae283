/** Jobs of a `resource_group` (§3.2 `enqueue` → `waiting_for_resource`, `enqueue_waiting_for_resource`; §5.1 rule 10). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isActiveStatus, isAliveStatus, isCancelableStatus, isJobCancelable, transitionEventName } from '../../src/pipeline/index.ts';
import { assignResource, cancel, cancelPipeline, fail, jobNamed, pipelineOf, play, process, retry, runScenario, start, succeed, timeReached } from './scenario.ts';

const STAGES = ['build', 'deploy'];
const MINUTE = 60_000;

describe('resource groups', () => {
  it('enqueues a job of a group to waiting_for_resource; an assignment makes it pending, then it runs as any job', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build' },
        { name: 'deploy-a', stage: 'deploy', resourceGroup: 'production' },
        { name: 'deploy-b', stage: 'deploy', resourceGroup: 'production' },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', 'deploy-a': 'created', 'deploy-b': 'created' }, pipeline: 'pending' },
        { event: succeed('compile'), jobs: { compile: 'success', 'deploy-a': 'waiting_for_resource', 'deploy-b': 'waiting_for_resource' }, pipeline: 'waiting_for_resource' },
        { event: assignResource('deploy-a'), jobs: { compile: 'success', 'deploy-a': 'pending', 'deploy-b': 'waiting_for_resource' }, pipeline: 'running' },
        { event: start('deploy-a'), jobs: { compile: 'success', 'deploy-a': 'running', 'deploy-b': 'waiting_for_resource' }, pipeline: 'running' },
        // An assignment of a job no longer waiting changes nothing.
        { event: assignResource('deploy-a'), jobs: { compile: 'success', 'deploy-a': 'running', 'deploy-b': 'waiting_for_resource' }, pipeline: 'running' },
        { event: succeed('deploy-a'), jobs: { compile: 'success', 'deploy-a': 'success', 'deploy-b': 'waiting_for_resource' }, pipeline: 'waiting_for_resource' },
        { event: assignResource('deploy-b'), jobs: { compile: 'success', 'deploy-a': 'success', 'deploy-b': 'pending' }, pipeline: 'running' },
        { event: succeed('deploy-b'), jobs: { compile: 'success', 'deploy-a': 'success', 'deploy-b': 'success' }, pipeline: 'success' },
      ],
    );
  });

  it('cancels a waiting job, alone or with its pipeline; the job and pipeline cancels include it', () => {
    const { state } = runScenario(pipelineOf(STAGES, [{ name: 'ship', stage: 'deploy', resourceGroup: 'production' }, { name: 'other', stage: 'deploy', resourceGroup: 'production' }]), [
      { event: process(), jobs: { ship: 'waiting_for_resource', other: 'waiting_for_resource' }, pipeline: 'waiting_for_resource' },
      { event: cancel('ship'), jobs: { ship: 'canceled', other: 'waiting_for_resource' }, pipeline: 'waiting_for_resource' },
      { event: cancelPipeline(), jobs: { ship: 'canceled', other: 'canceled' }, pipeline: 'canceled' },
    ]);
    assert.equal(isJobCancelable({ ...jobNamed(state, 'ship'), status: 'waiting_for_resource' }), true);
  });

  it('fails a waiting job with an automatic retry that waits again', () => {
    runScenario(pipelineOf(STAGES, [{ name: 'ship', stage: 'deploy', resourceGroup: 'production', retry: 1 }]), [
      { event: process(), jobs: { ship: 'waiting_for_resource' }, pipeline: 'waiting_for_resource' },
      { event: assignResource('ship'), jobs: { ship: 'pending' }, pipeline: 'pending' },
      { event: fail('ship'), jobs: { 'ship#1': 'failed', ship: 'waiting_for_resource' }, pipeline: 'waiting_for_resource' },
    ]);
  });

  it('sends a retried, played or due delayed job of a group to waiting_for_resource', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'manual', stage: 'deploy', when: 'manual', allowFailure: false, resourceGroup: 'production' },
        { name: 'delayed', stage: 'deploy', when: 'delayed', startInSeconds: 60, resourceGroup: 'staging' },
      ]),
      [
        { event: process(), jobs: { manual: 'manual', delayed: 'scheduled' }, pipeline: 'manual' },
        { event: play('manual'), jobs: { manual: 'waiting_for_resource', delayed: 'scheduled' }, pipeline: 'waiting_for_resource' },
        { event: timeReached('delayed'), now: MINUTE, jobs: { manual: 'waiting_for_resource', delayed: 'waiting_for_resource' }, pipeline: 'waiting_for_resource' },
        { event: assignResource('manual'), jobs: { manual: 'pending', delayed: 'waiting_for_resource' }, pipeline: 'running' },
        { event: fail('manual'), jobs: { manual: 'failed', delayed: 'waiting_for_resource' }, pipeline: 'waiting_for_resource' },
        { event: retry('manual'), jobs: { 'manual#1': 'failed', manual: 'waiting_for_resource', delayed: 'waiting_for_resource' }, pipeline: 'waiting_for_resource' },
      ],
    );
  });

  it('counts waiting_for_resource as active, alive and cancelable, and names its events', () => {
    assert.equal(isActiveStatus('waiting_for_resource'), true);
    assert.equal(isAliveStatus('waiting_for_resource'), true);
    assert.equal(isCancelableStatus('waiting_for_resource'), true);
    assert.equal(transitionEventName('created', 'waiting_for_resource'), 'enqueue');
    assert.equal(transitionEventName('scheduled', 'waiting_for_resource'), 'enqueue_scheduled');
    assert.equal(transitionEventName('waiting_for_resource', 'pending'), 'enqueue_waiting_for_resource');
  });
});
