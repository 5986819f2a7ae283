/** The rules' side of forward deployment: jobs with an outdated deployment fail instead of being enqueued; `drop-jobs`. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { handleEvent, type EventResult, type PipelineEvent, type PipelineState } from '../../src/pipeline/index.ts';
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

  it('drops the jobs drop-jobs names that can fail; a manual action and a finished job stay', () => {
    const initial = pipelineOf(['deploy'], [{ name: 'running', stage: 'deploy' }, { name: 'pending', stage: 'deploy' }, { name: 'manual', stage: 'deploy', when: 'manual' }, { name: 'done', stage: 'deploy' }]);
    let { state } = applied(initial, { type: 'process' });
    ({ state } = applied(state, { type: 'job-status', jobId: 1, status: 'running' }));
    ({ state } = applied(state, { type: 'job-status', jobId: 4, status: 'running' }));
    ({ state } = applied(state, { type: 'job-status', jobId: 4, status: 'success' }));
    ({ state } = applied(state, { type: 'drop-jobs', jobIds: [1, 2, 3, 4], failureReason: 'forward_deployment_failure' }));
    assert.deepEqual(statuses(state), ['running:failed:forward_deployment_failure', 'pending:failed:forward_deployment_failure', 'manual:manual', 'done:success']);
  });

  it('leaves the failed jobs a pipeline retry is told to keep', () => {
    let { state } = applied(pipelineOf(['deploy'], [{ name: 'deploy', stage: 'deploy' }, { name: 'test', stage: 'deploy' }]), { type: 'process' });
    ({ state } = applied(state, { type: 'drop-jobs', jobIds: [1, 2], failureReason: 'forward_deployment_failure' }));
    ({ state } = applied(state, { type: 'retry-pipeline', keepJobIds: [1] }));
    assert.deepEqual(statuses(state), ['deploy:failed:forward_deployment_failure', 'test:failed:forward_deployment_failure', 'test:pending']);
  });
});
