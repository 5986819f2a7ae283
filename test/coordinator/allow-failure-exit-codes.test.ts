import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startContract, type Contract } from '../helpers/runner-contract.ts';
import { RUNNER_INFO, startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * `allow_failure: {exit_codes}` as GitLab 13.8 runs it: the runner reports the script's exit
 * code, a failure with one of the codes makes the job allowed to fail (the pipeline passes
 * with warnings), any other code fails the pipeline; a runner without `return_exit_code`
 * never gets such a job.
 */
const ciFailingWith = (code: number): string => `
lint:
  script: exit ${code}
  allow_failure:
    exit_codes: [1, 3]
after:
  stage: deploy
  script: echo after
stages: [test, deploy]
`;

describe('allow_failure exit_codes with our runner (shell)', () => {
  let contract: Contract;

  before(async () => {
    contract = await startContract({ executor: 'shell' });
  });
  after(() => contract.close());

  async function run(name: string, code: number): Promise<{ status: string; lint: Record<string, unknown>; after: Record<string, unknown> | undefined }> {
    const { projectId, pipelineId } = await contract.project(name, { '.gitlab-ci.yml': ciFailingWith(code) });
    const { status, jobs } = await contract.finished(projectId, pipelineId);
    const lint = jobs.find((job) => job.name === 'lint');
    assert.ok(lint, JSON.stringify(jobs));
    const fromApi = await contract.test.api('GET', `/projects/${projectId}/jobs/${String(lint.id)}`);
    assert.equal(fromApi.status, 200, fromApi.text);
    return { status, lint: fromApi.json, after: jobs.find((job) => job.name === 'after') };
  }

  it('allows the failure with a listed code: the job API says allow_failure, the next stage runs', async () => {
    const { status, lint, after: next } = await run('exit-listed', 3);
    assert.equal(status, 'success');
    assert.equal(lint.status, 'failed');
    assert.equal(lint.failure_reason, 'script_failure');
    assert.equal(lint.allow_failure, true);
    assert.equal(next?.status, 'success');
  });

  it('fails the pipeline with any other code, allow_failure staying false', async () => {
    const { status, lint, after: next } = await run('exit-other', 4);
    assert.equal(status, 'failed');
    assert.equal(lint.status, 'failed');
    assert.equal(lint.allow_failure, false);
    assert.equal(next?.status, 'skipped');
  });
});

describe('allow_failure exit_codes and the runner features', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(() => fixture.close());

  it('fails the job with runner_unsupported for a runner without return_exit_code, and gives it to one with it', async () => {
    const ci = 'coded:\n  script: [make]\n  allow_failure:\n    exit_codes: 3\n';
    const project = await fixture.ciProject('exit-codes-feature', ci);
    const runner = await fixture.register(project.runners_token);
    const lacking = { ...RUNNER_INFO, features: { ...RUNNER_INFO.features, return_exit_code: false } };

    const refusedPipeline = await fixture.runPipeline(project.id);
    assert.equal((await fixture.requestJob(runner.token, undefined, lacking)).status, 204);
    const refused = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${refusedPipeline}/jobs`);
    assert.equal(refused.list[0]?.status, 'failed');
    assert.equal(refused.list[0]?.failure_reason, 'runner_unsupported');
    assert.equal(refused.list[0]?.allow_failure, false);

    const takenPipeline = await fixture.runPipeline(project.id);
    const taken = await fixture.requestJob(runner.token);
    assert.equal(taken.status, 201, taken.text);
    const jobs = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${takenPipeline}/jobs`);
    assert.equal(taken.json.id, jobs.list[0]?.id);
  });
});
