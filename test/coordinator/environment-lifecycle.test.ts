import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ciServicesOf } from '../../src/coordinator/app.ts';
import type { JobRecord } from '../../src/storage/types-ci-jobs.ts';
import type { EnvironmentRecord } from '../../src/storage/types-environments.ts';
import { moveJob } from '../helpers/ci-pipelines.ts';
import { claimedVariables, startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * What a successful deployment does to its environment (GitLab's
 * `Deployments::UpdateEnvironmentService`): the job's expanded `url` replaces the external URL,
 * `auto_stop_in` sets `auto_stop_at` (`never` clears it), a declared `deployment_tier` the
 * tier; and the auto-stop sweep stopping environments past their time.
 */
const CI = `
stages: [deploy, retier, cleanup]
deploy:
  stage: deploy
  script: ./deploy
  environment:
    name: review/$CI_COMMIT_REF_NAME
    url: https://$DEPLOY_HOST/
    auto_stop_in: $LIFETIME
    deployment_tier: staging
retier:
  stage: retier
  script: ./promote
  when: manual
  environment:
    name: review/$CI_COMMIT_REF_NAME
    deployment_tier: production
`;

const STOPPABLE_CI = `
stages: [deploy, cleanup]
deploy:
  stage: deploy
  script: ./deploy
  environment: { name: review/$CI_COMMIT_REF_NAME, auto_stop_in: 1 hour, on_stop: stop }
plain:
  stage: deploy
  script: ./deploy
  environment: { name: plain-$CI_COMMIT_REF_NAME, auto_stop_in: 1 hour }
lasting:
  stage: deploy
  script: ./deploy
  environment: { name: lasting, auto_stop_in: 1 week }
stop:
  stage: cleanup
  script: ./stop
  when: manual
  environment: { name: review/$CI_COMMIT_REF_NAME, action: stop }
`;

const TIER_CI = `
plain:
  script: ./deploy
  environment: production
  id_tokens:
    ID_TOKEN: { aud: https://vault.example.com }
declared:
  script: ./deploy
  environment: { name: production, deployment_tier: staging }
guessed:
  script: ./deploy
  environment: review/$CI_COMMIT_REF_NAME
`;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('environments renewed by deployments, and auto-stop', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(() => fixture.close());

  const stores = () => fixture.gantry.coordinator.context.stores;

  async function jobsOf(pipelineId: number): Promise<Record<string, JobRecord>> {
    const { items } = await stores().jobs.list({ pipelineId, sort: 'asc' }, { offset: 0, limit: 100 });
    return Object.fromEntries(items.map((job) => [job.name, job]));
  }

  async function environment(projectId: number, name: string): Promise<EnvironmentRecord> {
    const found = await stores().environments.findByName(projectId, name);
    assert.ok(found, `environment ${name}`);
    return found;
  }

  async function pipelineWith(projectId: number, variables: Record<string, string>): Promise<number> {
    const body = { ref: 'main', variables: Object.entries(variables).map(([key, value]) => ({ key, value })) };
    const created = await fixture.gantry.api('POST', `/projects/${projectId}/pipeline`, { body });
    assert.equal(created.status, 201, created.text);
    return created.json.id as number;
  }

  /** Runs the job to success; answers the time span the success happened in. */
  async function succeed(job: JobRecord): Promise<{ from: number; to: number }> {
    const from = Date.now();
    await moveJob(fixture.gantry.coordinator, job, 'running');
    await moveJob(fixture.gantry.coordinator, job, 'success');
    return { from, to: Date.now() };
  }

  function assertAround(actual: string | null, span: { from: number; to: number }, offsetMs: number, what: string): void {
    assert.ok(actual, `${what}: set`);
    const at = Date.parse(actual);
    assert.ok(at >= span.from + offsetMs - 1000 && at <= span.to + offsetMs + 1000, `${what}: ${actual}`);
  }

  it('a successful deployment replaces the URL, sets auto_stop_at from auto_stop_in and the declared tier; never clears it', async () => {
    const project = await fixture.ciProject('renewed', CI);
    const first = await pipelineWith(project.id, { DEPLOY_HOST: 'one.example.com', LIFETIME: '2 days' });
    let review = await environment(project.id, 'review/main');
    assert.deepEqual([review.external_url, review.tier], [null, 'staging'], 'created with the declared tier, its URL waiting for a deployment\'s success');
    const deployed = await succeed((await jobsOf(first)).deploy!);
    review = await environment(project.id, 'review/main');
    assert.equal(review.external_url, 'https://one.example.com/', 'the first deployment\'s URL');
    assertAround(review.auto_stop_at, deployed, 2 * DAY, 'auto_stop_at after the first deployment');

    const second = await pipelineWith(project.id, { DEPLOY_HOST: 'two.example.com', LIFETIME: 'never' });
    assert.equal((await environment(project.id, 'review/main')).external_url, 'https://one.example.com/', 'not before the deployment succeeds');
    await succeed((await jobsOf(second)).deploy!);
    review = await environment(project.id, 'review/main');
    assert.deepEqual([review.external_url, review.auto_stop_at], ['https://two.example.com/', null], 'the new URL; never: no auto-stop');

    // A URL that expands to nothing (or to one GitLab refuses) leaves the URL; a duration sets the time again.
    const third = await pipelineWith(project.id, { DEPLOY_HOST: '', LIFETIME: '90 minutes' });
    const thirdDeployed = await succeed((await jobsOf(third)).deploy!);
    review = await environment(project.id, 'review/main');
    assert.equal(review.external_url, 'https://two.example.com/');
    assertAround(review.auto_stop_at, thirdDeployed, 90 * 60_000, 'auto_stop_at after the third deployment');
    const failedRun = await pipelineWith(project.id, { DEPLOY_HOST: 'three.example.com', LIFETIME: '1 minute' });
    const failing = (await jobsOf(failedRun)).deploy!;
    await moveJob(fixture.gantry.coordinator, failing, 'running');
    await moveJob(fixture.gantry.coordinator, failing, 'failed', 'script_failure');
    assert.deepEqual(await environment(project.id, 'review/main'), review, 'a failed deployment renews nothing');

    const shown = await fixture.gantry.api('GET', `/projects/${project.id}/environments/${review.id}`);
    assert.deepEqual([shown.json.tier, shown.json.auto_stop_at, shown.json.external_url], ['staging', review.auto_stop_at, 'https://two.example.com/']);

    const autoStopAt = review.auto_stop_at;
    const played = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${(await jobsOf(third)).retier!.id}/play`);
    assert.equal(played.status, 200, played.text);
    await succeed((await jobsOf(third)).retier!);
    review = await environment(project.id, 'review/main');
    assert.deepEqual([review.tier, review.external_url, review.auto_stop_at], ['production', 'https://two.example.com/', autoStopAt], 'a declared tier changes it; no url or auto_stop_in changes nothing else');
    const listed = await fixture.gantry.api('GET', `/projects/${project.id}/environments`);
    assert.deepEqual(listed.list.map((item) => [item.name, item.tier]), [['review/main', 'production']]);
  });

  it('the sweep stops available environments past auto_stop_at, playing their on_stop job as its own user', async () => {
    const project = await fixture.ciProject('auto-stop', STOPPABLE_CI);
    const pipelineId = await fixture.runPipeline(project.id);
    let jobs = await jobsOf(pipelineId);
    for (const name of ['deploy', 'plain', 'lasting']) await succeed(jobs[name]!);
    const past = new Date(Date.now() - 1000).toISOString();
    for (const name of ['review/main', 'plain-main']) {
      const found = await environment(project.id, name);
      await stores().environments.update(found.id, { auto_stop_at: past });
    }
    const sweep = ciServicesOf(fixture.gantry.coordinator).environmentAutoStop;
    assert.equal(await sweep.sweep(), 2);
    for (const name of ['review/main', 'plain-main']) {
      const stopped = await environment(project.id, name);
      assert.deepEqual([name, stopped.state, stopped.auto_stop_at], [name, 'stopped', null]);
    }
    const lasting = await environment(project.id, 'lasting');
    assert.equal(lasting.state, 'available', 'not due yet');
    jobs = await jobsOf(pipelineId);
    assert.deepEqual([jobs.stop!.status, jobs.stop!.user_id], ['pending', jobs.deploy!.user_id], 'the on_stop job is played');
    assert.equal(await sweep.sweep(), 0, 'nothing left to stop');

    // Stopped by its stop job, then deployed again: available, with a new auto-stop time.
    await succeed(jobs.stop!);
    const retried = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${jobs.deploy!.id}/retry`);
    assert.equal(retried.status, 201, retried.text);
    const redeployed = await succeed((await jobsOf(pipelineId)).deploy!);
    const review = await environment(project.id, 'review/main');
    assert.equal(review.state, 'available');
    assertAround(review.auto_stop_at, redeployed, HOUR, 'auto_stop_at after the redeployment');
  });

  it("gives a job that declares no tier its environment's saved tier (CI_ENVIRONMENT_TIER, the id token's deployment_tier)", async () => {
    const project = await fixture.ciProject('saved-tier', TIER_CI);
    const created = await fixture.gantry.api('POST', `/projects/${project.id}/environments`, { body: { name: 'production', tier: 'testing' } });
    assert.equal(created.status, 201, created.text);
    const runner = await fixture.register(project.runners_token);
    const byJob = await claimedVariables(fixture, project.id, runner.token, ['CI_ENVIRONMENT_TIER', 'ID_TOKEN']);
    const claims = JSON.parse(Buffer.from(byJob.plain!.ID_TOKEN!.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    assert.deepEqual(
      [byJob.plain!.CI_ENVIRONMENT_TIER, claims.deployment_tier, byJob.declared!.CI_ENVIRONMENT_TIER, byJob.guessed!.CI_ENVIRONMENT_TIER],
      ['testing', 'testing', 'staging', 'development'],
    );
  });

  it('stopping through the API clears auto_stop_at', async () => {
    const project = await fixture.ciProject('api-stop', STOPPABLE_CI);
    const pipelineId = await fixture.runPipeline(project.id);
    await succeed((await jobsOf(pipelineId)).plain!);
    const plain = await environment(project.id, 'plain-main');
    assert.notEqual(plain.auto_stop_at, null);
    const stopped = await fixture.gantry.api('POST', `/projects/${project.id}/environments/${plain.id}/stop`);
    assert.deepEqual([stopped.status, stopped.json.state, stopped.json.auto_stop_at], [200, 'stopped', null]);
  });
});
