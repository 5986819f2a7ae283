import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hasOutdatedDeployment, isOlderThanLastSuccessful } from '../../src/coordinator/services/ci/pipelines/forward-deployments.ts';
import { ResourceGroupAssignment } from '../../src/coordinator/services/ci/pipelines/resource-group-assignment.ts';
import { ciServicesOf } from '../../src/coordinator/app.ts';
import type { JobRecord } from '../../src/storage/types-ci-jobs.ts';
import type { DeploymentRecord } from '../../src/storage/types-environments.ts';
import { moveJob } from '../helpers/ci-pipelines.ts';
import { PageClient } from '../web/page-client.ts';
import { startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * GitLab's "Prevent outdated deployment jobs" (`ci_forward_deployment_enabled`): a deployment
 * job about to be enqueued, older than the environment's last successful deployment of another
 * commit, fails with `failed_outdated_deployment_job`; such a job cannot be played or
 * canceled, nor retried as a rollback or erased when `ci_forward_deployment_rollback_allowed` is
 * off; and, as in
 * GitLab since its `prevent_outdated_deployment_jobs` flag went, a newer deployment leaves the
 * older ones already pending or running alone.
 */
// Newer pipelines of main leave the older ones running (GitLab 16.8's auto_cancel).
const NO_AUTO_CANCEL = 'workflow: { auto_cancel: { on_new_commit: none } }';

const PARALLEL_CI = `
${NO_AUTO_CANCEL}
deploy:
  script: ./deploy
  environment: production
manual-deploy:
  script: ./deploy
  when: manual
  environment: production
`;

const STAGED_CI = `
${NO_AUTO_CANCEL}
stages: [build, deploy]
build:
  stage: build
  script: make
deploy:
  stage: deploy
  script: ./deploy
  environment: production
`;

const GROUPED_CI = `
${NO_AUTO_CANCEL}
stages: [build, deploy]
build:
  stage: build
  script: make
deploy:
  stage: deploy
  script: ./deploy
  resource_group: production
  environment: production
`;

// A build job and a trigger job deploy to the same environment (bridges have deployments since GitLab 16.4).
const BRIDGED_CI = `
${NO_AUTO_CANCEL}
stages: [build, deploy]
build:
  stage: build
  script: make
deploy:
  stage: deploy
  script: ./deploy
  environment: production
trigger-deploy:
  stage: deploy
  trigger:
    include: child.yml
  environment: production
`;

type Fixture = RunnerJobsFixture;

async function jobsOf(fixture: Fixture, pipelineId: number): Promise<Record<string, JobRecord>> {
  const { items } = await fixture.gantry.coordinator.context.stores.jobs.list({ pipelineId, sort: 'asc' }, { offset: 0, limit: 100 });
  return Object.fromEntries(items.filter((job) => !job.retried).map((job) => [job.name, job]));
}

async function deploymentOf(fixture: Fixture, jobId: number): Promise<DeploymentRecord> {
  const found = await fixture.gantry.coordinator.context.stores.deployments.findByJob(jobId);
  assert.ok(found, `deployment of job ${jobId}`);
  return found;
}

/** A new commit on main, so the next pipeline deploys another sha. */
async function commit(fixture: Fixture, projectId: number, name: string): Promise<void> {
  const created = await fixture.gantry.api('POST', `/projects/${projectId}/repository/commits`, {
    body: { branch: 'main', commit_message: name, actions: [{ action: 'create', file_path: `${name}.txt`, content: name }] },
  });
  assert.equal(created.status, 201, created.text);
}

async function setProject(fixture: Fixture, projectId: number, settings: Record<string, boolean>): Promise<void> {
  const updated = await fixture.gantry.api('PUT', `/projects/${projectId}`, { body: settings });
  assert.equal(updated.status, 200, updated.text);
  for (const [key, value] of Object.entries(settings)) assert.equal(updated.json[key], value, key);
}

async function succeed(fixture: Fixture, job: JobRecord): Promise<void> {
  await moveJob(fixture.gantry.coordinator, job, 'running');
  await moveJob(fixture.gantry.coordinator, job, 'success');
}

describe('forward deployment: outdated deployment jobs are not enqueued', () => {
  let fixture: Fixture;

  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(() => fixture.close());

  it("fails an older pipeline's deployment job with failed_outdated_deployment_job when it would be enqueued after a newer success", async () => {
    const project = await fixture.ciProject('outdated', STAGED_CI);
    const old = await jobsOf(fixture, await fixture.runPipeline(project.id));
    await commit(fixture, project.id, 'second');
    const newer = await jobsOf(fixture, await fixture.runPipeline(project.id));
    await succeed(fixture, newer.build!);
    await succeed(fixture, (await jobsOf(fixture, newer.build!.pipeline_id)).deploy!);
    const sameSha = await jobsOf(fixture, await fixture.runPipeline(project.id));

    await succeed(fixture, old.build!);
    const after = await jobsOf(fixture, old.build!.pipeline_id);
    assert.deepEqual([after.deploy!.status, after.deploy!.failure_reason], ['failed', 'failed_outdated_deployment_job']);
    assert.equal((await deploymentOf(fixture, after.deploy!.id)).status, 'failed');
    const pipeline = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${old.build!.pipeline_id}`);
    assert.equal(pipeline.json.status, 'failed');
    const shown = await fixture.gantry.api('GET', `/projects/${project.id}/jobs/${after.deploy!.id}`);
    assert.equal(shown.json.failure_reason, 'failed_outdated_deployment_job', 'the jobs API shows the reason');
    const page = await new PageClient(fixture.gantry).get(new URL(shown.json.web_url as string).pathname);
    assert.equal(page.statusCode, 200, page.body.slice(0, 300));
    assert.match(
      page.body,
      /<dd id="job-failure-reason">The deployment job is older than the latest deployment, and therefore failed\. <a href="https:\/\/docs\.gitlab\.com\/ci\/environments\/deployment_safety\/#prevent-outdated-deployment-jobs"[^>]*>How do I fix it\?<\/a><\/dd>/,
      "the job page says it as GitLab's does",
    );
    assert.doesNotMatch(page.body, /failed_outdated_deployment_job/);

    await succeed(fixture, sameSha.build!);
    assert.equal((await jobsOf(fixture, sameSha.build!.pipeline_id)).deploy!.status, 'pending', 'a deployment of the last successful sha is not outdated');
  });

  it('leaves older deployment jobs already pending or running alone when a newer deployment starts and succeeds', async () => {
    const project = await fixture.ciProject('older-left', PARALLEL_CI);
    const first = await jobsOf(fixture, await fixture.runPipeline(project.id));
    await moveJob(fixture.gantry.coordinator, first.deploy!, 'running');
    await commit(fixture, project.id, 'second');
    const second = await jobsOf(fixture, await fixture.runPipeline(project.id));
    await commit(fixture, project.id, 'third');
    const third = await jobsOf(fixture, await fixture.runPipeline(project.id));
    await succeed(fixture, third.deploy!);
    assert.equal((await jobsOf(fixture, first.deploy!.pipeline_id)).deploy!.status, 'running');
    assert.equal((await jobsOf(fixture, second.deploy!.pipeline_id)).deploy!.status, 'pending');
    await moveJob(fixture.gantry.coordinator, second.deploy!, 'running');
    assert.equal((await jobsOf(fixture, second.deploy!.pipeline_id)).deploy!.status, 'running', 'a runner may still take it');
  });

  it('fails an outdated job waiting for its resource group when the group assigns it the resource', async () => {
    const project = await fixture.ciProject('outdated-group', GROUPED_CI);
    const assignment = new ResourceGroupAssignment({ processing: ciServicesOf(fixture.gantry.coordinator).pipelineProcessing });
    const old = await jobsOf(fixture, await fixture.runPipeline(project.id));
    await commit(fixture, project.id, 'second');
    const newer = await jobsOf(fixture, await fixture.runPipeline(project.id));
    await succeed(fixture, newer.build!);
    await assignment.assign(project.id, 'production');
    const holder = (await jobsOf(fixture, newer.build!.pipeline_id)).deploy!;
    assert.equal(holder.status, 'pending', 'the newer deployment job holds the resource');
    await succeed(fixture, old.build!);
    assert.equal((await jobsOf(fixture, old.build!.pipeline_id)).deploy!.status, 'waiting_for_resource', 'not outdated yet: nothing succeeded');

    await succeed(fixture, holder);
    await assignment.assign(project.id, 'production');
    const waiting = (await jobsOf(fixture, old.build!.pipeline_id)).deploy!;
    assert.deepEqual([waiting.status, waiting.failure_reason], ['failed', 'failed_outdated_deployment_job']);
  });

  it('enqueues an older deployment job when the project has ci_forward_deployment_enabled false', async () => {
    const project = await fixture.ciProject('outdated-disabled', STAGED_CI);
    await setProject(fixture, project.id, { ci_forward_deployment_enabled: false });
    const old = await jobsOf(fixture, await fixture.runPipeline(project.id));
    await commit(fixture, project.id, 'second');
    const newer = await jobsOf(fixture, await fixture.runPipeline(project.id));
    await succeed(fixture, newer.build!);
    await succeed(fixture, (await jobsOf(fixture, newer.build!.pipeline_id)).deploy!);
    await succeed(fixture, old.build!);
    assert.equal((await jobsOf(fixture, old.build!.pipeline_id)).deploy!.status, 'pending');
  });

  it('runs the retry of an older successful deployment job as a rollback, and refuses it (and its erase) without rollbacks', async () => {
    const project = await fixture.ciProject('rollback', STAGED_CI);
    const shown = await fixture.gantry.api('GET', `/projects/${project.id}`);
    assert.deepEqual([shown.json.ci_forward_deployment_enabled, shown.json.ci_forward_deployment_rollback_allowed], [true, true], 'on by default');
    const first = await jobsOf(fixture, await fixture.runPipeline(project.id));
    await succeed(fixture, first.build!);
    await succeed(fixture, (await jobsOf(fixture, first.build!.pipeline_id)).deploy!);
    await commit(fixture, project.id, 'second');
    const second = await jobsOf(fixture, await fixture.runPipeline(project.id));
    await succeed(fixture, second.build!);
    const secondDeploy = (await jobsOf(fixture, second.build!.pipeline_id)).deploy!;
    await succeed(fixture, secondDeploy);

    const oldDeploy = (await jobsOf(fixture, first.build!.pipeline_id)).deploy!;
    const rollback = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${oldDeploy.id}/retry`);
    assert.equal(rollback.status, 201, rollback.text);
    assert.equal(rollback.json.status, 'pending', 'the rollback runs');
    await succeed(fixture, (await jobsOf(fixture, first.build!.pipeline_id)).deploy!);

    // The rollback is now the last successful deployment: the second commit's job is the older one.
    await setProject(fixture, project.id, { ci_forward_deployment_rollback_allowed: false });
    const refused = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${secondDeploy.id}/retry`);
    assert.equal(refused.status, 403, refused.text);
    const erase = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${secondDeploy.id}/erase`);
    assert.equal(erase.status, 403, erase.text);
    await setProject(fixture, project.id, { ci_forward_deployment_rollback_allowed: true });
    const allowed = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${secondDeploy.id}/retry`);
    assert.equal(allowed.status, 201, allowed.text);
  });

  it('takes both settings on POST /projects and shows them', async () => {
    const created = await fixture.gantry.api('POST', '/projects', {
      body: { name: 'forward-settings', namespace_id: fixture.groupId, ci_forward_deployment_enabled: false, ci_forward_deployment_rollback_allowed: false },
    });
    assert.equal(created.status, 201, created.text);
    const shown = await fixture.gantry.api('GET', `/projects/${created.json.id as number}`);
    assert.deepEqual([shown.json.ci_forward_deployment_enabled, shown.json.ci_forward_deployment_rollback_allowed], [false, false]);
  });

  it('a pipeline retry leaves an outdated failed deployment job when rollbacks are refused, and retries it when they are allowed', async () => {
    const project = await fixture.ciProject('pipeline-retry', STAGED_CI);
    const old = await jobsOf(fixture, await fixture.runPipeline(project.id));
    await commit(fixture, project.id, 'second');
    const newer = await jobsOf(fixture, await fixture.runPipeline(project.id));
    await succeed(fixture, newer.build!);
    await succeed(fixture, (await jobsOf(fixture, newer.build!.pipeline_id)).deploy!);
    await succeed(fixture, old.build!);
    const outdated = (await jobsOf(fixture, old.build!.pipeline_id)).deploy!;
    assert.equal(outdated.failure_reason, 'failed_outdated_deployment_job');

    await assertRetryFollowsRollbackSetting(fixture, project.id, outdated);
  });

  it("fails an older pipeline's outdated trigger job as its build jobs, and a pipeline retry leaves it when rollbacks are refused (GitLab's BridgePolicy is a DeployablePolicy)", async () => {
    const project = await fixture.ciProject('outdated-bridge', BRIDGED_CI);
    const old = await jobsOf(fixture, await fixture.runPipeline(project.id));
    await commit(fixture, project.id, 'second');
    const newer = await jobsOf(fixture, await fixture.runPipeline(project.id));
    await succeed(fixture, newer.build!);
    await succeed(fixture, (await jobsOf(fixture, newer.build!.pipeline_id)).deploy!);
    await succeed(fixture, old.build!);
    const outdated = (await jobsOf(fixture, old.build!.pipeline_id))['trigger-deploy']!;
    assert.equal(outdated.type, 'bridge');
    assert.deepEqual([outdated.status, outdated.failure_reason], ['failed', 'failed_outdated_deployment_job']);
    assert.equal((await deploymentOf(fixture, outdated.id)).status, 'failed');

    await assertRetryFollowsRollbackSetting(fixture, project.id, outdated);
  });

  it('refuses to play an outdated manual deployment job, and to cancel an outdated pending one', async () => {
    const project = await fixture.ciProject('outdated-manual', PARALLEL_CI);
    const old = await jobsOf(fixture, await fixture.runPipeline(project.id));
    await commit(fixture, project.id, 'second');
    const newer = await jobsOf(fixture, await fixture.runPipeline(project.id));
    await succeed(fixture, newer.deploy!);
    const played = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${old['manual-deploy']!.id}/play`);
    assert.equal(played.status, 403, played.text);
    const current = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${newer['manual-deploy']!.id}/play`);
    assert.equal(current.status, 200, current.text);
    assert.equal((await jobsOf(fixture, old.deploy!.pipeline_id)).deploy!.status, 'pending', 'enqueued before the newer deployment succeeded');
    const canceled = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${old.deploy!.id}/cancel`);
    assert.equal(canceled.status, 403, canceled.text);
  });
});

/**
 * A pipeline retry leaves the outdated job when the project refuses rollbacks, and retries it
 * when it allows them: its new deployment is then the newest, so the new job runs.
 */
async function assertRetryFollowsRollbackSetting(fixture: RunnerJobsFixture, projectId: number, outdated: JobRecord): Promise<void> {
  const retryPipeline = async () => {
    const answer = await fixture.gantry.api('POST', `/projects/${projectId}/pipelines/${outdated.pipeline_id}/retry`);
    assert.equal(answer.status, 201, answer.text);
    return (await jobsOf(fixture, outdated.pipeline_id))[outdated.name]!;
  };
  await setProject(fixture, projectId, { ci_forward_deployment_rollback_allowed: false });
  assert.equal((await retryPipeline()).id, outdated.id, 'not retried');
  await setProject(fixture, projectId, { ci_forward_deployment_rollback_allowed: true });
  const again = await retryPipeline();
  assert.notEqual(again.id, outdated.id, 'retried as a rollback');
  assert.equal(again.status, 'pending', 'its new deployment is the newest: it runs');
}

describe('forward deployment: what is outdated', () => {
  it("reads a deployment as outdated as GitLab's older_than_last_successful_deployment? and has_outdated_deployment? do", () => {
    const last = { id: 10, sha: 'b' };
    assert.equal(isOlderThanLastSuccessful({ id: 5, sha: 'a' }, last), true);
    assert.equal(isOlderThanLastSuccessful({ id: 5, sha: 'b' }, last), false, 'the same commit');
    assert.equal(isOlderThanLastSuccessful({ id: 10, sha: 'a' }, last), false, 'the last one itself');
    assert.equal(isOlderThanLastSuccessful({ id: 12, sha: 'a' }, last), false, 'newer');
    assert.equal(isOlderThanLastSuccessful({ id: 5, sha: 'a' }, undefined), false, 'nothing succeeded yet');
    const on = { enabled: true, rollbackAllowed: true };
    assert.equal(hasOutdatedDeployment(on, 'manual', { id: 5, sha: 'a' }, last), true, 'an unfinished job');
    assert.equal(hasOutdatedDeployment(on, 'success', { id: 5, sha: 'a' }, last), false, 'a finished one may be retried as a rollback');
    assert.equal(hasOutdatedDeployment({ enabled: true, rollbackAllowed: false }, 'success', { id: 5, sha: 'a' }, last), true, 'unless rollbacks are refused');
    assert.equal(hasOutdatedDeployment({ enabled: false, rollbackAllowed: false }, 'manual', { id: 5, sha: 'a' }, last), false, 'forward deployment off');
    assert.equal(hasOutdatedDeployment(on, 'manual', undefined, last), false, 'no deployment');
  });
});
