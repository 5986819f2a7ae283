/**
 * Graceful cancel (reference/ci-config-and-states.md §3.1, 16.x `canceling`): a running job
 * whose runner announced `cancel_gracefully` goes to `canceling`; the runner's final report
 * (success or failed) ends it `canceled`; a forced cancel ends it at once. Other jobs cancel
 * as before.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compositeOfSymbols, isJobCancelable } from '../../src/pipeline/index.ts';
import { cancel, cancelPipeline, fail, forceCancel, jobNamed, pipelineOf, process, report, runScenario, start, succeed } from './scenario.ts';

const STAGES = ['build', 'test', 'deploy'];

describe('graceful cancel', () => {
  it('cancels a running job of a graceful runner to canceling, then canceled when the runner reports', () => {
    const { state } = runScenario(
      pipelineOf(STAGES, [
        { name: 'compile', stage: 'build', cancelGracefully: true },
        { name: 'ship', stage: 'deploy' },
      ]),
      [
        { event: process(), jobs: { compile: 'pending', ship: 'created' }, pipeline: 'pending' },
        { event: start('compile'), jobs: { compile: 'running', ship: 'created' }, pipeline: 'running' },
        // {canceling, created} composes to running (rule 14 before 15), as in GitLab.
        { event: cancel('compile'), jobs: { compile: 'canceling', ship: 'created' }, pipeline: 'running' },
        // gitlab-runner 18 reports `failed` with `job_canceled` once after_script ran: GitLab's `drop` from canceling.
        { event: fail('compile', 'job_canceled'), jobs: { compile: 'canceled', ship: 'skipped' }, pipeline: 'canceled' },
      ],
    );
    assert.equal(jobNamed(state, 'compile').failureReason ?? null, null, 'a finished cancel carries no failure reason');
  });

  it('a success reported by a canceling job ends it canceled too', () => {
    runScenario(pipelineOf(STAGES, [{ name: 'a', stage: 'build', cancelGracefully: true }]), [
      { event: process(), jobs: { a: 'pending' }, pipeline: 'pending' },
      { event: start('a'), jobs: { a: 'running' }, pipeline: 'running' },
      { event: cancel('a'), jobs: { a: 'canceling' }, pipeline: 'canceling' },
      { event: succeed('a'), jobs: { a: 'canceled' }, pipeline: 'canceled' },
    ]);
  });

  it('a pipeline cancel takes graceful running jobs to canceling and the others to canceled', () => {
    runScenario(
      pipelineOf(STAGES, [
        { name: 'old-runner', stage: 'build' },
        { name: 'new-runner', stage: 'build', cancelGracefully: true },
        { name: 'waiting', stage: 'build' },
        { name: 'later', stage: 'test' },
      ]),
      [
        { event: process(), jobs: { 'old-runner': 'pending', 'new-runner': 'pending', waiting: 'pending', later: 'created' }, pipeline: 'pending' },
        { event: start('old-runner'), jobs: { 'old-runner': 'running', 'new-runner': 'pending', waiting: 'pending', later: 'created' }, pipeline: 'running' },
        { event: start('new-runner'), jobs: { 'old-runner': 'running', 'new-runner': 'running', waiting: 'pending', later: 'created' }, pipeline: 'running' },
        { event: cancelPipeline(), jobs: { 'old-runner': 'canceled', 'new-runner': 'canceling', waiting: 'canceled', later: 'canceled' }, pipeline: 'canceling' },
        { event: fail('new-runner', 'job_canceled'), jobs: { 'old-runner': 'canceled', 'new-runner': 'canceled', waiting: 'canceled', later: 'canceled' }, pipeline: 'canceled' },
      ],
    );
  });

  it('a pending job of a graceful runner is canceled at once (only running jobs have a runner to tell)', () => {
    runScenario(pipelineOf(STAGES, [{ name: 'a', stage: 'build', cancelGracefully: true }]), [
      { event: process(), jobs: { a: 'pending' }, pipeline: 'pending' },
      { event: cancel('a'), jobs: { a: 'canceled' }, pipeline: 'canceled' },
    ]);
  });

  it('a canceling job is not canceled again; a forced cancel ends it', () => {
    runScenario(pipelineOf(STAGES, [{ name: 'a', stage: 'build', cancelGracefully: true }]), [
      { event: process(), jobs: { a: 'pending' }, pipeline: 'pending' },
      { event: start('a'), jobs: { a: 'running' }, pipeline: 'running' },
      { event: cancel('a'), jobs: { a: 'canceling' }, pipeline: 'canceling' },
      { event: cancel('a'), jobs: { a: 'canceling' }, pipeline: 'canceling' },
      { event: cancelPipeline(), jobs: { a: 'canceling' }, pipeline: 'canceling' },
      { event: forceCancel('a'), jobs: { a: 'canceled' }, pipeline: 'canceled' },
    ]);
  });

  it('a forced cancel of a job that is not canceling is an ordinary cancel', () => {
    runScenario(pipelineOf(STAGES, [{ name: 'a', stage: 'build', cancelGracefully: true }]), [
      { event: process(), jobs: { a: 'pending' }, pipeline: 'pending' },
      { event: start('a'), jobs: { a: 'running' }, pipeline: 'running' },
      { event: forceCancel('a'), jobs: { a: 'canceling' }, pipeline: 'canceling' },
    ]);
  });

  it('refuses a canceling job any other report (400)', () => {
    runScenario(pipelineOf(STAGES, [{ name: 'a', stage: 'build', cancelGracefully: true }]), [
      { event: process(), jobs: { a: 'pending' }, pipeline: 'pending' },
      { event: start('a'), jobs: { a: 'running' }, pipeline: 'running' },
      { event: cancel('a'), jobs: { a: 'canceling' }, pipeline: 'canceling' },
      { event: report('a', 'running'), refusedWith: 400 },
      { event: report('a', 'pending'), refusedWith: 400 },
    ]);
  });

  it('a retry of a canceling job leaves it canceling and enqueues a new one without the runner feature', () => {
    const { state } = runScenario(pipelineOf(STAGES, [{ name: 'a', stage: 'build', cancelGracefully: true }]), [
      { event: process(), jobs: { a: 'pending' }, pipeline: 'pending' },
      { event: start('a'), jobs: { a: 'running' }, pipeline: 'running' },
      { event: cancel('a'), jobs: { a: 'canceling' }, pipeline: 'canceling' },
      { event: { label: 'retry a', build: (s) => ({ type: 'retry-job', jobId: jobNamed(s, 'a').id }) }, jobs: { 'a#1': 'canceling', a: 'pending' }, pipeline: 'running' },
    ]);
    assert.equal(jobNamed(state, 'a').cancelGracefully, undefined);
    assert.equal(isJobCancelable(jobNamed(state, 'a')), true);
  });

  it('composes canceling after every live status and before failed (§5.1 rule 15)', () => {
    assert.equal(compositeOfSymbols(['canceling']), 'canceling');
    assert.equal(compositeOfSymbols(['canceling', 'success']), 'canceling');
    assert.equal(compositeOfSymbols(['canceling', 'failed']), 'canceling');
    assert.equal(compositeOfSymbols(['canceling', 'canceled']), 'canceling');
    assert.equal(compositeOfSymbols(['canceling', 'running']), 'running');
    assert.equal(compositeOfSymbols(['canceling', 'created']), 'running');
    assert.equal(compositeOfSymbols(['canceling', 'manual']), 'manual');
  });
});
