/** The rules' side of forward deployment: jobs with an outdated deployment fail instead of being enqueued; a pipeline retry keeps those it is told to. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { failedJobCancelsPipeline, handleEvent, type EventResult, type PipelineEvent, type PipelineState } from '../../src/pipeline/index.ts';
import { pipelineOf } from './scenario.ts';

function applied(state: PipelineState, event: PipelineEvent, outdated: number[] = []): { state: PipelineState; result: EventResult } {
  const result = handleEvent(state, event, { now: 0, outdatedDeploymentJobIds: new Set(outdated) });
  return { state: { status: result.pipelineStatus, jobs: result.jobs }, result };
}

const statuses = (state: PipelineState): string[] => state.jobs.map((job) => `${job.name}:${job.status}${job.failureReason ? `:${job.failureReason}` : ''}`);

describe('outdated deployment jobs in the rules', () => {
  it('fails an outdated job where processing would enqueue it; others run', () => {
    const initial = pipelineOf(['build', 'deploy'], [{ name: 'build', stage: 'build' }, { name: 'deploy', stage: 'deploy' }, { name: 'notify', stage: 'deploy' }]);
    let { state } = applied(initial, { type: 'process' }, [2]);
    assert.deepEqual(statuses(state), ['build:pending', 'deploy:created', 'notify:created'], 'a job waiting for its stage is not touched');
    ({ state } = applied(state, { type: 'job-status', jobId: 1, status: 'running' }, [2]));
    ({ state } = applied(state, { type: 'job-status', jobId: 1, status: 'success' }, [2]));
    assert.deepEqual(statuses(state), ['build:success', 'deploy:failed:failed_outdated_deployment_job', 'notify:pending']);
  });

  it("fails an outdated job waiting for its resource when its group assigns it, and only then", () => {
    let { state } = applied(pipelineOf(['deploy'], [{ name: 'deploy', stage: 'deploy', resourceGroup: 'production' }]), { type: 'process' });
    assert.deepEqual(statuses(state), ['deploy:waiting_for_resource']);
    ({ state } = applied(state, { type: 'assign-resource', jobId: 1 }, [1]));
    assert.deepEqual(statuses(state), ['deploy:failed:failed_outdated_deployment_job']);
    assert.equal(state.status, 'failed');
  });

  it('leaves the failed jobs a pipeline retry is told to keep', () => {
    let { state } = applied(pipelineOf(['deploy'], [{ name: 'deploy', stage: 'deploy' }, { name: 'test', stage: 'deploy' }]), { type: 'process' });
    for (const jobId of [1, 2]) ({ state } = applied(state, { type: 'job-status', jobId, status: 'failed', failureReason: 'script_failure' }));
    ({ state } = applied(state, { type: 'retry-pipeline', keepJobIds: [1] }));
    assert.deepEqual(statuses(state), ['deploy:failed:script_failure', 'test:failed:script_failure', 'test:pending']);
  });

  it("does not retry an outdated job by its retry:, and, as GitLab expects the retry it then refuses, does not cancel the pipeline on its failure", () => {
    const stages = ['build', 'deploy'];
    for (const retry of [2, { max: 1, when: ['failed_outdated_deployment_job' as const] }]) {
      let { state } = applied(pipelineOf(stages, [{ name: 'build', stage: 'build' }, { name: 'deploy', stage: 'deploy', retry }]), { type: 'process' });
      ({ state } = applied(state, { type: 'job-status', jobId: 1, status: 'running' }));
      const { state: after, result } = applied(state, { type: 'job-status', jobId: 1, status: 'success' }, [2]);
      assert.deepEqual(statuses(after), ['build:success', 'deploy:failed:failed_outdated_deployment_job'], 'no new deploy job');
      assert.equal(failedJobCancelsPipeline(result), false, 'on_job_failure: all leaves the pipeline');
    }
    for (const retry of [undefined, { max: 2, when: ['script_failure' as const] }]) {
      let { state } = applied(pipelineOf(stages, [{ name: 'build', stage: 'build' }, { name: 'deploy', stage: 'deploy', ...(retry ? { retry } : {}) }]), { type: 'process' });
      ({ state } = applied(state, { type: 'job-status', jobId: 1, status: 'running' }));
      const { result } = applied(state, { type: 'job-status', jobId: 1, status: 'success' }, [2]);
      assert.equal(failedJobCancelsPipeline(result), true, 'no retry expected: it cancels, as any failure');
    }
  });
});
