import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDownstreamFixture, waitFor, type DownstreamFixture } from './downstream-fixtures.ts';

/**
 * A trigger job with `environment:` (GitLab 16.4 and later): the environment is created with
 * the bridge, which gets a deployment following its status, as a build job does.
 */
const PARENT = `
stages: [build, deploy, cleanup]
build:
  stage: build
  script: make
deploy-child:
  stage: deploy
  trigger:
    include: ci/child.yml
  environment:
    name: review/$CI_COMMIT_REF_NAME
    url: https://$CI_ENVIRONMENT_SLUG.example.com
    on_stop: stop-child
stop-child:
  stage: cleanup
  when: manual
  trigger:
    include: ci/child.yml
  environment:
    name: review/$CI_COMMIT_REF_NAME
    action: stop
`;

const REFUSED = `
deploy-child:
  trigger:
    include: ci/child.yml
  environment: review/$UNSET_VARIABLE
`;

const CHILD = `
child-deploy:
  script: ./deploy
`;

describe('bridges with environment:', () => {
  let fixture: DownstreamFixture;
  let project: { id: number; path: string };

  before(async () => {
    fixture = await startDownstreamFixture();
    project = await fixture.project('bridge-env');
  });
  after(() => fixture.close());

  it('create their environment and a deployment that follows the bridge; a stop bridge stops it', async () => {
    const { stores } = fixture.gantry.coordinator.context;
    const sha = await fixture.commit(project.id, 'feature', { '.gitlab-ci.yml': PARENT, 'ci/child.yml': CHILD });
    const parent = await fixture.pushPipeline(project.id, sha, 'feature');
    let jobs = await fixture.jobs(parent.id);
    const environment = await stores.environments.findByName(project.id, 'review/feature');
    assert.ok(environment, 'created with the pipeline');
    // Its URL comes with the deployment's success, as GitLab gives it.
    assert.deepEqual([environment.external_url, environment.tier, environment.state], [null, 'development', 'available']);
    const [deployment] = await stores.deployments.listForPipeline(parent.id);
    assert.deepEqual([deployment?.job_id, deployment?.status, deployment?.on_stop], [jobs['deploy-child'].id, 'created', 'stop-child'], 'the stop bridge records none');

    await fixture.finish(jobs.build, 'success');
    const bridge = await fixture.jobWhen(parent.id, 'deploy-child', (job) => job.status === 'success', 'the bridge succeeds once its child exists');
    const succeeded = await waitFor(async () => (await stores.deployments.listForPipeline(parent.id)).find((item) => item.status === 'success'), 'the deployment succeeds');
    assert.equal(succeeded.job_id, bridge.id);
    const shown = await fixture.gantry.api('GET', `/projects/${project.id}/environments/${environment.id}`);
    assert.equal((shown.json.last_deployment as { id: number }).id, succeeded.id);
    assert.equal(shown.json.external_url, `https://${environment.slug}.example.com`);

    jobs = await fixture.jobs(parent.id);
    assert.equal(jobs['stop-child'].status, 'manual');
    const stopped = await fixture.gantry.api('POST', `/projects/${project.id}/environments/${environment.id}/stop`);
    assert.deepEqual([stopped.status, stopped.json.state], [200, 'stopped']);
    await fixture.jobWhen(parent.id, 'stop-child', (job) => job.status === 'success', 'the stop bridge, played, succeeds');
    assert.equal((await stores.environments.findInProject(project.id, environment.id))?.state, 'stopped');
  });

  it('fail with environment_creation_failure when their environment name expands to one GitLab refuses', async () => {
    const sha = await fixture.commit(project.id, 'refused', { '.gitlab-ci.yml': REFUSED, 'ci/child.yml': CHILD });
    const parent = await fixture.pushPipeline(project.id, sha, 'refused');
    const jobs = await fixture.jobs(parent.id);
    assert.deepEqual([jobs['deploy-child'].status, jobs['deploy-child'].failure_reason], ['failed', 'environment_creation_failure']);
    assert.deepEqual(await fixture.gantry.coordinator.context.stores.deployments.listForPipeline(parent.id), []);
  });
});
