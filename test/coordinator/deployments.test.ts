import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { environmentSlug } from '../../src/ci/slug.ts';
import type { JobRecord } from '../../src/storage/types-ci-jobs.ts';
import type { DeploymentRecord, EnvironmentRecord } from '../../src/storage/types-environments.ts';
import { moveJob } from '../helpers/ci-pipelines.ts';
import { startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * Jobs with `environment:` (reference §10): the environment and a `created` deployment when the
 * pipeline is created, the deployment following its job through a runner's claim
 * (POST /jobs/request) and its updates (PUT /jobs/:id), `last_deployment` on the API, and a
 * successful stop job stopping the environment.
 */
const CI = `
stages: [build, deploy, cleanup]
build:
  stage: build
  script: make
deploy_review:
  stage: deploy
  script: ./deploy
  environment:
    name: review/$CI_COMMIT_REF_NAME
    url: https://$CI_ENVIRONMENT_SLUG.example.com/$CI_PROJECT_NAME
    on_stop: stop_review
stop_review:
  stage: cleanup
  script: ./stop
  when: manual
  environment:
    name: review/$CI_COMMIT_REF_NAME
    action: stop
prepare_review:
  stage: build
  script: ./prepare
  environment:
    name: review/$CI_COMMIT_REF_NAME
    action: prepare
`;

const MANUAL_CI = `
stages: [build, deploy]
build:
  stage: build
  script: make
production:
  stage: deploy
  script: ./ship
  when: manual
  environment: production
staging:
  stage: deploy
  script: ./ship staging
  environment: { name: staging }
`;

describe('deployments of jobs with environment:', () => {
  let fixture: RunnerJobsFixture;
  /** A runner of the test's project alone, so pending jobs of other tests stay out of its way. */
  let runnerToken: string;

  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(() => fixture.close());

  const stores = () => fixture.gantry.coordinator.context.stores;

  async function jobsOf(pipelineId: number): Promise<Record<string, JobRecord>> {
    const { items } = await stores().jobs.list({ pipelineId, sort: 'asc', includeRetried: true }, { offset: 0, limit: 100 });
    return Object.fromEntries(items.map((job) => [job.name, job]));
  }

  async function deploymentsOf(pipelineId: number): Promise<DeploymentRecord[]> {
    return stores().deployments.listForPipeline(pipelineId);
  }

  async function environment(projectId: number, name: string): Promise<EnvironmentRecord> {
    const found = await stores().environments.findByName(projectId, name);
    assert.ok(found, `environment ${name}`);
    return found;
  }

  /** The runner's PUT /jobs/:id with the job token. */
  async function runnerUpdate(jobId: number, token: string, state: string): Promise<number> {
    const response = await fetch(`${fixture.baseUrl}/api/v4/jobs/${jobId}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, state, ...(state === 'failed' ? { failure_reason: 'script_failure' } : {}) }),
    });
    await response.arrayBuffer();
    return response.status;
  }

  async function ciProject(path: string, ci: string) {
    const project = await fixture.ciProject(path, ci);
    runnerToken = (await fixture.register(project.runners_token)).token;
    return project;
  }

  async function claim(expectedName: string): Promise<{ id: number; token: string }> {
    const response = await fixture.requestJob(runnerToken);
    assert.equal(response.status, 201, response.text);
    assert.equal((response.json.job_info as { name: string }).name, expectedName);
    return { id: response.json.id as number, token: response.json.token as string };
  }

  it('creates the environment (expanded name; its URL waits for a deployment\'s success) and a created deployment for the start job only', async () => {
    const project = await ciProject('review-app', CI);
    const pipelineId = await fixture.runPipeline(project.id);
    const jobs = await jobsOf(pipelineId);
    const review = await environment(project.id, 'review/main');
    const slug = environmentSlug('review/main');
    assert.deepEqual([review.slug, review.external_url, review.state], [slug, null, 'available']);
    const deployments = await deploymentsOf(pipelineId);
    assert.equal(deployments.length, 1, 'stop and prepare jobs record no deployment');
    const [deployment] = deployments;
    assert.deepEqual(
      { ...deployment, id: 0, created_at: '', updated_at: '' },
      {
        id: 0, iid: 1, project_id: project.id, environment_id: review.id, job_id: jobs.deploy_review!.id, ref: 'main', tag: false, sha: project.headSha,
        user_id: jobs.deploy_review!.user_id, status: 'created', on_stop: 'stop_review', created_at: '', updated_at: '', finished_at: null,
      },
    );
    assert.notEqual(deployment!.user_id, null);
    const listed = await fixture.gantry.api('GET', `/projects/${project.id}/environments`);
    assert.deepEqual(listed.list.map((item) => [item.name, item.last_deployment]), [['review/main', null]]);
  });

  it('creates the environment of a job that only prepares, verifies, accesses or stops it, without a URL or a deployment', async () => {
    const project = await ciProject('env-actions', `
prepare:
  script: ./prepare
  environment: { name: prepared, action: prepare, url: https://prepared.example.com }
verify:
  script: ./verify
  environment: { name: verified, action: verify }
access:
  script: ./access
  environment: { name: accessed, action: access }
stop:
  script: ./stop
  environment: { name: stopped/$CI_COMMIT_REF_NAME, action: stop }
`);
    const pipelineId = await fixture.runPipeline(project.id);
    assert.deepEqual(await deploymentsOf(pipelineId), []);
    const listed = await fixture.gantry.api('GET', `/projects/${project.id}/environments`);
    assert.deepEqual(
      listed.list.map((item) => [item.name, item.state, item.external_url, item.last_deployment]).sort(),
      [['accessed', 'available', null, null], ['prepared', 'available', null, null], ['stopped/main', 'available', null, null], ['verified', 'available', null, null]],
    );
  });

  it('follows the job: running on claim, success on the runner update; last_deployment and stop', async () => {
    const project = await ciProject('follow', CI);
    const pipelineId = await fixture.runPipeline(project.id);
    for (const name of ['build', 'prepare_review']) {
      const job = await claim(name);
      assert.equal(await runnerUpdate(job.id, job.token, 'success'), 200);
    }
    const deploy = await claim('deploy_review');
    let [deployment] = await deploymentsOf(pipelineId);
    assert.deepEqual([deployment!.job_id, deployment!.status, deployment!.finished_at], [deploy.id, 'running', null]);
    const review = await environment(project.id, 'review/main');
    assert.equal((await fixture.gantry.api('GET', `/projects/${project.id}/environments/${review.id}`)).json.last_deployment, null, 'not successful yet');
    assert.equal(review.external_url, null, 'no URL before the deployment succeeds');

    assert.equal(await runnerUpdate(deploy.id, deploy.token, 'success'), 200);
    assert.equal((await environment(project.id, 'review/main')).external_url, `https://${review.slug}.example.com/follow`, 'the expanded URL, with the success');
    [deployment] = await deploymentsOf(pipelineId);
    assert.equal(deployment!.status, 'success');
    assert.notEqual(deployment!.finished_at, null);
    const shown = await fixture.gantry.api('GET', `/projects/${project.id}/environments/${review.id}`);
    const last = shown.json.last_deployment as Record<string, unknown>;
    assert.deepEqual(
      [last.id, last.iid, last.ref, last.sha, last.status, (last.user as { id: number }).id],
      [deployment!.id, deployment!.iid, 'main', project.headSha, 'success', deployment!.user_id],
    );

    // The stop job (manual) stops the environment only when it succeeds.
    const jobs = await jobsOf(pipelineId);
    assert.equal(jobs.stop_review!.status, 'manual');
    const played = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${jobs.stop_review!.id}/play`);
    assert.equal(played.status, 200, played.text);
    assert.equal((await environment(project.id, 'review/main')).state, 'available');
    const stop = await claim('stop_review');
    assert.equal((await environment(project.id, 'review/main')).state, 'available', 'running is not stopped yet');
    assert.equal(await runnerUpdate(stop.id, stop.token, 'success'), 200);
    assert.equal((await environment(project.id, 'review/main')).state, 'stopped');
    assert.equal((await deploymentsOf(pipelineId)).length, 1, 'the stop job recorded no deployment');

    // Deploying again (a retry: a new job, a new deployment) makes it available.
    const retried = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${deploy.id}/retry`);
    assert.equal(retried.status, 201, retried.text);
    const deployments = await deploymentsOf(pipelineId);
    assert.deepEqual(deployments.map((item) => [item.job_id, item.iid, item.status]), [[deploy.id, 1, 'success'], [retried.json.id, 2, 'created']]);
    const again = await claim('deploy_review');
    assert.equal(again.id, retried.json.id);
    assert.equal(await runnerUpdate(again.id, again.token, 'success'), 200);
    assert.equal((await environment(project.id, 'review/main')).state, 'available');
    const newest = (await fixture.gantry.api('GET', `/projects/${project.id}/environments/${review.id}`)).json.last_deployment as Record<string, unknown>;
    assert.equal(newest.iid, 2);
  });

  it('records failed, canceled, skipped and blocked (manual) deployments', async () => {
    const project = await ciProject('outcomes', MANUAL_CI);
    const first = await fixture.runPipeline(project.id);
    const firstJobs = await jobsOf(first);
    const statusByJob = async (pipelineId: number) => Object.fromEntries((await deploymentsOf(pipelineId)).map((item) => [item.job_id, item.status]));
    assert.deepEqual(await statusByJob(first), { [firstJobs.production!.id]: 'created', [firstJobs.staging!.id]: 'created' });
    await moveJob(fixture.gantry.coordinator, firstJobs.build!, 'running');
    await moveJob(fixture.gantry.coordinator, firstJobs.build!, 'success');
    assert.deepEqual(await statusByJob(first), { [firstJobs.production!.id]: 'blocked', [firstJobs.staging!.id]: 'created' }, 'manual → blocked');
    const staging = await claim('staging');
    assert.equal(await runnerUpdate(staging.id, staging.token, 'failed'), 200);
    assert.deepEqual(await statusByJob(first), { [firstJobs.production!.id]: 'blocked', [firstJobs.staging!.id]: 'failed' });
    const failed = (await deploymentsOf(first)).find((item) => item.job_id === staging.id);
    assert.notEqual(failed?.finished_at, null);

    const second = await fixture.runPipeline(project.id);
    const secondJobs = await jobsOf(second);
    const canceled = await fixture.gantry.api('POST', `/projects/${project.id}/pipelines/${second}/cancel`);
    assert.equal(canceled.status, 200, canceled.text);
    assert.deepEqual(await statusByJob(second), { [secondJobs.production!.id]: 'canceled', [secondJobs.staging!.id]: 'canceled' });

    const third = await fixture.runPipeline(project.id);
    const thirdJobs = await jobsOf(third);
    const build = await claim('build');
    assert.equal(await runnerUpdate(build.id, build.token, 'failed'), 200);
    assert.deepEqual(await statusByJob(third), { [thirdJobs.production!.id]: 'skipped', [thirdJobs.staging!.id]: 'skipped' });

    const environments = await fixture.gantry.api('GET', `/projects/${project.id}/environments`);
    assert.deepEqual(environments.list.map((item) => [item.name, item.state, item.last_deployment]), [['production', 'available', null], ['staging', 'available', null]]);
    const all = [...(await deploymentsOf(first)), ...(await deploymentsOf(second)), ...(await deploymentsOf(third))].map((item) => item.iid).sort((a, b) => a - b);
    assert.deepEqual(all, [1, 2, 3, 4, 5, 6], 'iids count per project');
  });

  it('fails a job whose environment name expands to nothing or to refused characters with environment_creation_failure, also when retried', async () => {
    const project = await ciProject('bad-name', `
stages: [deploy, after]
variables:
  TARGET: "a:b"
blank:
  stage: deploy
  script: ./deploy
  environment: { name: $NOPE }
colon:
  stage: deploy
  script: ./deploy
  environment: review/$TARGET
slash:
  stage: deploy
  script: ./deploy
  environment: review/$NOPE
fine:
  stage: deploy
  script: ./deploy
  environment: review/$CI_COMMIT_REF_NAME
later:
  stage: after
  script: echo later
`);
    const pipelineId = await fixture.runPipeline(project.id);
    const jobs = await jobsOf(pipelineId);
    for (const name of ['blank', 'colon', 'slash']) {
      const shown = await fixture.gantry.api('GET', `/projects/${project.id}/jobs/${jobs[name]!.id}`);
      assert.equal(shown.status, 200, shown.text);
      assert.deepEqual([name, shown.json.status, shown.json.failure_reason], [name, 'failed', 'environment_creation_failure']);
    }
    assert.equal(jobs.fine!.status, 'pending');
    assert.deepEqual((await deploymentsOf(pipelineId)).map((item) => item.job_id), [jobs.fine!.id], 'refused names record no deployment');
    const environments = await fixture.gantry.api('GET', `/projects/${project.id}/environments`);
    assert.deepEqual(environments.list.map((item) => item.name), ['review/main']);

    const retried = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${jobs.colon!.id}/retry`);
    assert.equal(retried.status, 201, retried.text);
    assert.notEqual(retried.json.id, jobs.colon!.id);
    assert.deepEqual([retried.json.status, retried.json.failure_reason], ['failed', 'environment_creation_failure'], 'the new job fails the same way, it does not wait for a runner');
    assert.equal((await jobsOf(pipelineId)).colon!.id, retried.json.id);

    const fine = await claim('fine');
    assert.equal(await runnerUpdate(fine.id, fine.token, 'success'), 200);
    const done = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${pipelineId}`);
    assert.equal(done.json.status, 'failed');
    assert.equal((await jobsOf(pipelineId)).later!.status, 'skipped');
  });
});
