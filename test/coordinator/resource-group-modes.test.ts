import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitFor } from './downstream-fixtures.ts';
import { startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * The resource group process modes through real pipelines (runner, task worker): who gets the
 * free resource next under `oldest_first`, `newest_first` and `newest_ready_first`, and that a
 * mode changed through the API decides the next assignment.
 */
const WORKFLOW = 'workflow:\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "push"\n      when: never\n    - when: always';
/** A build without a group, then a deploy of the group `production`. */
const BUILD_THEN_DEPLOY = `${WORKFLOW}\nstages: [build, deploy]\nbuild:\n  stage: build\n  script: [make]\ndeploy:\n  stage: deploy\n  script: [make]\n  resource_group: production\n`;
/** Only a deploy of the group. */
const DEPLOY_ONLY = `${WORKFLOW}\nstages: [deploy]\ndeploy:\n  stage: deploy\n  script: [make]\n  resource_group: production\n`;

type Job = { id: number; name: string; status: string };

describe('resource group process modes', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture({ extra: { ci: { runTasks: true, taskPollIntervalMs: 30 } } });
  });
  after(() => fixture.close());

  async function jobOf(projectId: number, pipelineId: number, name: string): Promise<Job> {
    const answer = await fixture.gantry.api('GET', `/projects/${projectId}/pipelines/${pipelineId}/jobs`);
    const job = (answer.list as Job[]).find((candidate) => candidate.name === name);
    assert.ok(job, `${name} of pipeline ${pipelineId}`);
    return job;
  }

  async function statusBecomes(projectId: number, pipelineId: number, name: string, status: string): Promise<Job> {
    return waitFor(async () => {
      const job = await jobOf(projectId, pipelineId, name);
      return job.status === status ? job : undefined;
    }, `${name} of pipeline ${pipelineId} ${status}`);
  }

  /** Lets the task worker run what is due, then checks the job has not moved. */
  async function staysWaiting(projectId: number, pipelineId: number, name: string): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await jobOf(projectId, pipelineId, name)).status, 'waiting_for_resource', `${name} of pipeline ${pipelineId} still waits`);
  }

  /** Takes the next job as the runner; answers its id and token. */
  async function take(runnerToken: string): Promise<{ id: number; token: string }> {
    const taken = await fixture.requestJob(runnerToken);
    assert.equal(taken.status, 201, taken.text);
    return { id: taken.json.id as number, token: taken.json.token as string };
  }

  async function finish(job: { id: number; token: string }): Promise<void> {
    const response = await fetch(`${fixture.baseUrl}/api/v4/jobs/${job.id}`, {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: job.token, state: 'success' }),
    });
    assert.equal(response.status, 200, await response.text());
  }

  async function setMode(projectId: number, mode: string): Promise<void> {
    const changed = await fixture.gantry.api('PUT', `/projects/${projectId}/resource_groups/production`, { body: { process_mode: mode } });
    assert.equal(changed.status, 200, changed.text);
  }

  it('oldest_first: keeps the resource for the oldest pipeline whose job of the group has yet to run', async () => {
    const project = await fixture.ciProject('oldest-first', BUILD_THEN_DEPLOY);
    const runner = await fixture.register(project.runners_token);
    const older = await fixture.runPipeline(project.id);
    const newer = await fixture.runPipeline(project.id);
    await setMode(project.id, 'oldest_first');
    const olderBuild = await take(runner.token);
    const newerBuild = await take(runner.token);

    await finish(newerBuild);
    await statusBecomes(project.id, newer, 'deploy', 'waiting_for_resource');
    await staysWaiting(project.id, newer, 'deploy');
    await finish(olderBuild);
    const olderDeploy = await statusBecomes(project.id, older, 'deploy', 'pending');
    assert.equal((await jobOf(project.id, newer, 'deploy')).status, 'waiting_for_resource');
    const current = await fixture.gantry.api('GET', `/projects/${project.id}/resource_groups/production/current_job`);
    assert.deepEqual([current.json.id, current.json.status], [olderDeploy.id, 'pending'], 'the holder is the current job');
    const deploying = await take(runner.token);
    assert.equal(deploying.id, olderDeploy.id);
    await finish(deploying);
    await statusBecomes(project.id, newer, 'deploy', 'pending');
  });

  it('oldest_first: a canceled or deleted oldest pipeline no longer keeps the resource', async () => {
    const project = await fixture.ciProject('oldest-first-gone', BUILD_THEN_DEPLOY);
    const runner = await fixture.register(project.runners_token);
    const canceled = await fixture.runPipeline(project.id);
    const next = await fixture.runPipeline(project.id);
    await setMode(project.id, 'oldest_first');
    await take(runner.token);
    await finish(await take(runner.token));
    await staysWaiting(project.id, next, 'deploy');
    assert.equal((await fixture.gantry.api('POST', `/projects/${project.id}/pipelines/${canceled}/cancel`)).status, 200);
    await statusBecomes(project.id, next, 'deploy', 'pending');
    await finish(await take(runner.token));

    const deleted = await fixture.runPipeline(project.id);
    const last = await fixture.runPipeline(project.id);
    await take(runner.token);
    await finish(await take(runner.token));
    await staysWaiting(project.id, last, 'deploy');
    const upcoming = await fixture.gantry.api('GET', `/projects/${project.id}/resource_groups/production/upcoming_jobs`);
    assert.deepEqual(upcoming.list.map((job) => (job.pipeline as { id: number }).id), [deleted, last]);
    assert.equal((await fixture.gantry.api('DELETE', `/projects/${project.id}/pipelines/${deleted}`)).status, 204);
    await statusBecomes(project.id, last, 'deploy', 'pending');
  });

  it('newest_first: gives the resource to the newest pipeline, waiting for its job of the group', async () => {
    const project = await fixture.ciProject('newest-first', BUILD_THEN_DEPLOY);
    const runner = await fixture.register(project.runners_token);
    const older = await fixture.runPipeline(project.id);
    const newer = await fixture.runPipeline(project.id);
    await setMode(project.id, 'newest_first');
    const olderBuild = await take(runner.token);
    const newerBuild = await take(runner.token);

    await finish(olderBuild);
    await statusBecomes(project.id, older, 'deploy', 'waiting_for_resource');
    await staysWaiting(project.id, older, 'deploy');
    await finish(newerBuild);
    const newerDeploy = await statusBecomes(project.id, newer, 'deploy', 'pending');
    const deploying = await take(runner.token);
    assert.equal(deploying.id, newerDeploy.id);
    assert.equal((await jobOf(project.id, older, 'deploy')).status, 'waiting_for_resource');
    await finish(deploying);
    await statusBecomes(project.id, older, 'deploy', 'pending');
  });

  it('newest_ready_first: gives the resource to the newest waiting job, not waiting for jobs yet to be ready', async () => {
    const project = await fixture.ciProject('newest-ready-first', BUILD_THEN_DEPLOY);
    const runner = await fixture.register(project.runners_token);
    const first = await fixture.runPipeline(project.id);
    const second = await fixture.runPipeline(project.id);
    const third = await fixture.runPipeline(project.id);
    await setMode(project.id, 'newest_ready_first');
    const builds = [await take(runner.token), await take(runner.token), await take(runner.token)];

    await finish(builds[0]!);
    const firstDeploy = await statusBecomes(project.id, first, 'deploy', 'pending');
    await finish(builds[1]!);
    await finish(builds[2]!);
    await statusBecomes(project.id, second, 'deploy', 'waiting_for_resource');
    await statusBecomes(project.id, third, 'deploy', 'waiting_for_resource');
    const deploying = await take(runner.token);
    assert.equal(deploying.id, firstDeploy.id);
    await finish(deploying);
    await statusBecomes(project.id, third, 'deploy', 'pending');
    assert.equal((await jobOf(project.id, second, 'deploy')).status, 'waiting_for_resource');
  });

  it('a changed mode decides who gets the resource next', async () => {
    const project = await fixture.ciProject('changed-mode', DEPLOY_ONLY);
    const runner = await fixture.register(project.runners_token);
    const pipelines = [await fixture.runPipeline(project.id)];
    await statusBecomes(project.id, pipelines[0]!, 'deploy', 'pending');
    pipelines.push(await fixture.runPipeline(project.id), await fixture.runPipeline(project.id));
    await statusBecomes(project.id, pipelines[2]!, 'deploy', 'waiting_for_resource');
    const holder = await take(runner.token);

    // unordered would give it to the second pipeline's job, the oldest waiting.
    await setMode(project.id, 'newest_first');
    await finish(holder);
    await statusBecomes(project.id, pipelines[2]!, 'deploy', 'pending');
    assert.equal((await jobOf(project.id, pipelines[1]!, 'deploy')).status, 'waiting_for_resource');
    await finish(await take(runner.token));
    await statusBecomes(project.id, pipelines[1]!, 'deploy', 'pending');
  });

  it('a mode changed while the resource is kept for a job yet to be ready hands it out at once', async () => {
    const project = await fixture.ciProject('changed-mode-free', BUILD_THEN_DEPLOY);
    const runner = await fixture.register(project.runners_token);
    await fixture.runPipeline(project.id);
    const newer = await fixture.runPipeline(project.id);
    await setMode(project.id, 'oldest_first');
    await take(runner.token);
    await finish(await take(runner.token));
    await staysWaiting(project.id, newer, 'deploy');

    await setMode(project.id, 'unordered');
    await statusBecomes(project.id, newer, 'deploy', 'pending');
  });
});
