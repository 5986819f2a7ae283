/**
 * The `downstream-status` event: a `strategy: depend` bridge takes its downstream pipeline's
 * status from any status (`Ci::Bridge`'s inherit events), outside the job state machine, and
 * the pipeline follows, skipped dependents waiting again when the bridge runs anew.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyChanges, handleEvent, type DownstreamBridgeStatus, type PipelineState } from '../../src/pipeline/index.ts';
import { jobNamed, pipelineOf, statusesByLabel } from './scenario.ts';

const STAGES = ['build', 'child', 'after'];

function inherit(state: PipelineState, status: DownstreamBridgeStatus): PipelineState {
  const result = handleEvent(state, { type: 'downstream-status', jobId: jobNamed(state, 'bridge').id, status }, { now: 0 });
  assert.deepEqual(applyChanges(state.jobs, result.changes), result.jobs);
  return { status: result.pipelineStatus, jobs: result.jobs };
}

function withStatuses(state: PipelineState, statuses: Record<string, 'success' | 'running' | 'failed' | 'skipped' | 'created'>, status: PipelineState['status']): PipelineState {
  return {
    status,
    jobs: state.jobs.map((job) => ({ ...job, status: statuses[job.name] ?? job.status, failureReason: statuses[job.name] === 'failed' ? 'unknown_failure' : null })),
  };
}

describe('downstream-status (strategy: depend bridges)', () => {
  const initial = pipelineOf(STAGES, [
    { name: 'build', stage: 'build' },
    { name: 'bridge', stage: 'child' },
    { name: 'after', stage: 'after' },
  ]);

  it('failed with unknown_failure, then running again: the pipeline leaves failed and the skipped stage waits', () => {
    const running = withStatuses(initial, { build: 'success', bridge: 'running' }, 'running');
    const failed = inherit(running, 'failed');
    assert.deepEqual(statusesByLabel(failed.jobs), { build: 'success', bridge: 'failed', after: 'skipped' });
    assert.equal(jobNamed(failed, 'bridge').failureReason, 'unknown_failure');
    assert.equal(failed.status, 'failed');

    const again = inherit(failed, 'running');
    assert.deepEqual(statusesByLabel(again.jobs), { build: 'success', bridge: 'running', after: 'created' });
    assert.equal(jobNamed(again, 'bridge').failureReason, null);
    assert.equal(again.status, 'running');

    const done = inherit(again, 'success');
    assert.deepEqual(statusesByLabel(done.jobs), { build: 'success', bridge: 'success', after: 'pending' });
    assert.equal(done.status, 'running');
  });

  it('canceled carries no failure reason; the same status is a no-op; a retried bridge is left alone', () => {
    const running = withStatuses(initial, { build: 'success', bridge: 'running' }, 'running');
    const canceled = inherit(running, 'canceled');
    assert.equal(jobNamed(canceled, 'bridge').status, 'canceled');
    assert.equal(jobNamed(canceled, 'bridge').failureReason ?? null, null);
    const same = handleEvent(canceled, { type: 'downstream-status', jobId: jobNamed(canceled, 'bridge').id, status: 'canceled' }, { now: 0 });
    assert.deepEqual(same.changes, []);

    const retried = { ...canceled, jobs: canceled.jobs.map((job) => (job.name === 'bridge' ? { ...job, retried: true } : job)) };
    const ignored = handleEvent(retried, { type: 'downstream-status', jobId: jobNamed(canceled, 'bridge').id, status: 'success' }, { now: 0 });
    assert.deepEqual(ignored.changes, []);
  });
});
