import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { moveJob } from '../helpers/ci-pipelines.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

/**
 * CI as an unmodified GitLab client (@gitbeaker/rest) drives it against a listening
 * coordinator: a commit of a CI file creates a pipeline, the client runs, lists, cancels and
 * retries pipelines and jobs, plays a manual job, reads the trace endpoint, manages variables
 * and trigger tokens, runs a pipeline with a trigger, and posts an external commit status.
 */
const CI_FILE = `stages: [build, test, deploy]
variables:
  GLOBAL: "1"
build:
  stage: build
  script: [echo build]
test:
  stage: test
  script: [echo test]
deploy:
  stage: deploy
  script: [echo deploy]
  when: manual
`;

async function until<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('CI through a GitLab client (@gitbeaker/rest)', () => {
  let gantry: TestCoordinator;
  let api: InstanceType<typeof Gitlab>;
  let projectId: number;

  before(async () => {
    gantry = await startTestCoordinator();
    await gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const address = gantry.coordinator.app.server.address() as AddressInfo;
    api = new Gitlab({ host: `http://127.0.0.1:${address.port}`, token: gantry.rootToken });
    const project = await api.Projects.create({ name: 'beaker-ci', initializeWithReadme: true });
    projectId = project.id;
  });
  after(() => gantry.close());

  it('a committed CI file runs a pipeline the client lists, shows and reads the jobs of', async () => {
    await api.RepositoryFiles.create(projectId, '.gitlab-ci.yml', 'main', CI_FILE, 'Add CI');
    const pipeline = await until(async () => (await api.Pipelines.all(projectId, { ref: 'main' }))[0], 'the push pipeline');
    assert.equal(pipeline.source, 'push');
    const shown = await api.Pipelines.show(projectId, pipeline.id);
    assert.equal(shown.status, 'pending');
    assert.equal(shown.ref, 'main');
    const jobs = await api.Jobs.all(projectId, { pipelineId: pipeline.id });
    assert.deepEqual(jobs.map((job) => [job.name, job.status]).sort(), [['build', 'pending'], ['deploy', 'created'], ['test', 'created']]);
    assert.equal((await api.Jobs.show(projectId, jobs.find((job) => job.name === 'build')!.id)).stage, 'build');
  });

  it('creates a pipeline with variables, cancels and retries it, plays the manual job', async () => {
    const created = await api.Pipelines.create(projectId, 'main', { variables: [{ key: 'FROM_API', value: 'yes', variable_type: 'env_var' }] });
    assert.equal(created.source, 'api');
    assert.deepEqual(await api.Pipelines.allVariables(projectId, created.id), [{ key: 'FROM_API', value: 'yes', variable_type: 'env_var' }]);

    const canceled = await api.Pipelines.cancel(projectId, created.id);
    assert.equal(canceled.status, 'canceled');
    const retried = await api.Pipelines.retry(projectId, created.id);
    assert.ok(['pending', 'running'].includes(String(retried.status)), String(retried.status));

    const jobs = await api.Jobs.all(projectId, { pipelineId: created.id });
    const build = jobs.find((job) => job.name === 'build' && job.status === 'pending')!;
    await moveJob(gantry.coordinator, { id: build.id, pipeline_id: created.id }, 'running');
    await moveJob(gantry.coordinator, { id: build.id, pipeline_id: created.id }, 'success');
    const test = (await api.Jobs.all(projectId, { pipelineId: created.id })).find((job) => job.name === 'test' && job.status === 'pending')!;
    await moveJob(gantry.coordinator, { id: test.id, pipeline_id: created.id }, 'running');
    await moveJob(gantry.coordinator, { id: test.id, pipeline_id: created.id }, 'success');
    const deploy = (await api.Jobs.all(projectId, { pipelineId: created.id })).find((job) => job.name === 'deploy')!;
    assert.equal(deploy.status, 'manual');
    const played = await api.Jobs.play(projectId, deploy.id);
    assert.equal(played.status, 'pending');
    const canceledJob = await api.Jobs.cancel(projectId, deploy.id);
    assert.equal(canceledJob.status, 'canceled');
    const again = await api.Jobs.retry(projectId, deploy.id);
    assert.notEqual(again.id, deploy.id);
    assert.equal(again.status, 'pending');
  });

  it('manages project variables and trigger tokens, and runs a pipeline with a trigger', async () => {
    await api.ProjectVariables.create(projectId, 'DEPLOY_TOKEN', 'secret-value-123', { masked: true, protected: false });
    const variables = await api.ProjectVariables.all(projectId);
    assert.deepEqual(variables.map((variable) => [variable.key, variable.masked]), [['DEPLOY_TOKEN', true]]);

    const trigger = await api.PipelineTriggerTokens.create(projectId, 'from a client');
    assert.equal(trigger.description, 'from a client');
    const run = await api.PipelineTriggerTokens.trigger(projectId, 'main', String(trigger.token), { variables: { FROM_TRIGGER: 'x' } });
    assert.equal(run.source, 'trigger');
    assert.deepEqual((await api.Pipelines.allVariables(projectId, run.id)).map((variable) => variable.key), ['FROM_TRIGGER']);
  });

  it('posts an external commit status and reads it back among the commit statuses', async () => {
    const [commit] = await api.Commits.all(projectId, { refName: 'main', perPage: 1 });
    const status = await api.Commits.editStatus(projectId, commit!.id, 'running', { name: 'external-check', ref: 'main', targetUrl: 'https://ci.example.com/1' });
    assert.equal(status.status, 'running');
    const statuses = await api.Commits.allStatuses(projectId, commit!.id, { ref: 'main' });
    assert.ok(statuses.some((entry) => entry.name === 'external-check' && entry.status === 'running'));
  });
});
