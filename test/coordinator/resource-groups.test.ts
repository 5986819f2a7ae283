import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ciServicesOf } from '../../src/coordinator/app.ts';
import { ResourceGroupAssignment } from '../../src/coordinator/services/ci/pipelines/resource-group-assignment.ts';
import { waitFor } from './downstream-fixtures.ts';
import { startRunnerJobsFixture, startTwoCoordinators, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * `resource_group` as GitLab's `unordered` mode: a job of a group waits in
 * `waiting_for_resource` while another job of the group holds the resource (from its move to
 * `pending` until it completes), and the oldest waiting job gets it when the holder finishes or
 * is canceled; on PostgreSQL, concurrent assignments on two coordinators never hand it out twice.
 */
const postgres = process.env.GANTRY_TEST_DATABASE_URL !== undefined;

/** Jobs of one stage and one group; API pipelines only (the commit's push makes none). */
function ciWithGroup(names: readonly string[]): string {
  const jobs = names.map((name) => `${name}:\n  stage: deploy\n  script: [make]\n  resource_group: production\n`).join('');
  return `workflow:\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "push"\n      when: never\n    - when: always\nstages: [deploy]\n${jobs}`;
}

type Job = Record<string, unknown> & { id: number; name: string; status: string };

async function jobsOf(fixture: RunnerJobsFixture, projectId: number, pipelineId: number): Promise<Job[]> {
  const answer = await fixture.gantry.api('GET', `/projects/${projectId}/pipelines/${pipelineId}/jobs`);
  assert.equal(answer.status, 200, answer.text);
  return (answer.list as Job[]).sort((a, b) => a.id - b.id);
}

async function statusesWhen(fixture: RunnerJobsFixture, projectId: number, pipelineId: number, expected: string[], what: string): Promise<Job[]> {
  return waitFor(async () => {
    const jobs = await jobsOf(fixture, projectId, pipelineId);
    return JSON.stringify(jobs.map((job) => job.status)) === JSON.stringify(expected) ? jobs : undefined;
  }, what);
}

async function finish(fixture: RunnerJobsFixture, jobId: number, token: string): Promise<void> {
  const response = await fetch(`${fixture.baseUrl}/api/v4/jobs/${jobId}`, {
    method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, state: 'success' }),
  });
  assert.equal(response.status, 200, await response.text());
}

describe('resource_group: waiting_for_resource', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture({ extra: { ci: { runTasks: true, taskPollIntervalMs: 30 } } });
  });
  after(() => fixture.close());

  it('runs one job of the group at a time: the second waits for the resource until the first has finished', async () => {
    const project = await fixture.ciProject('one-at-a-time', ciWithGroup(['deploy-a', 'deploy-b']));
    const runner = await fixture.register(project.runners_token);
    const pipelineId = await fixture.runPipeline(project.id);
    const [first, second] = await statusesWhen(fixture, project.id, pipelineId, ['pending', 'waiting_for_resource'], 'deploy-a pending, deploy-b waiting');
    assert.equal(first!.name, 'deploy-a');
    const waiting = await fixture.gantry.api('GET', `/projects/${project.id}/jobs?scope[]=waiting_for_resource`);
    assert.deepEqual(waiting.list.map((job) => job.name), ['deploy-b']);
    assert.equal(waiting.list[0]?.queued_duration, null, 'not queued while it waits');

    const taken = await fixture.requestJob(runner.token);
    assert.equal(taken.status, 201, taken.text);
    assert.equal(taken.json.id, first!.id);
    assert.equal((await fixture.requestJob(runner.token)).status, 204, 'the waiting job is not handed out');
    assert.equal((await jobsOf(fixture, project.id, pipelineId))[1]?.status, 'waiting_for_resource');

    await finish(fixture, first!.id, taken.json.token as string);
    const [, assigned] = await statusesWhen(fixture, project.id, pipelineId, ['success', 'pending'], 'deploy-b pending once deploy-a succeeded');
    assert.equal(assigned!.id, second!.id);
    assert.equal(typeof assigned!.queued_duration, 'number', 'queued once assigned');
    const next = await fixture.requestJob(runner.token);
    assert.equal(next.status, 201, next.text);
    assert.equal(next.json.id, second!.id);
  });

  it('gives the resource to the waiting job when the holder is canceled, pending or running', async () => {
    const project = await fixture.ciProject('cancel-holder', ciWithGroup(['first', 'second', 'third']));
    const runner = await fixture.register(project.runners_token);
    const pipelineId = await fixture.runPipeline(project.id);
    const [first, second, third] = await statusesWhen(fixture, project.id, pipelineId, ['pending', 'waiting_for_resource', 'waiting_for_resource'], 'first pending');
    const pipeline = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${pipelineId}`);
    assert.equal(pipeline.json.status, 'running');

    assert.equal((await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${first!.id}/cancel`)).status, 201);
    await statusesWhen(fixture, project.id, pipelineId, ['canceled', 'pending', 'waiting_for_resource'], 'second pending after the pending first was canceled');
    const taken = await fixture.requestJob(runner.token);
    assert.equal(taken.json.id, second!.id);
    assert.equal((await fixture.requestJob(runner.token)).status, 204);

    assert.equal((await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${second!.id}/cancel`)).status, 201);
    await statusesWhen(fixture, project.id, pipelineId, ['canceled', 'canceled', 'pending'], 'third pending after the running second was canceled');
    const last = await fixture.requestJob(runner.token);
    assert.equal(last.json.id, third!.id);
  });
});

describe('resource_group: trigger jobs', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture({ extra: { ci: { runTasks: true, taskPollIntervalMs: 30 } } });
  });
  after(() => fixture.close());

  it('holds a trigger job of the group until the build holding the resource finishes, and only then creates its child pipeline', async () => {
    const ci = [
      'workflow:\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "push"\n      when: never\n    - when: always',
      'stages: [deploy]',
      'deploy-build:\n  stage: deploy\n  script: [make]\n  resource_group: production',
      'deploy-child:\n  stage: deploy\n  resource_group: production\n  trigger:\n    include: child.yml',
      '',
    ].join('\n');
    const project = await fixture.ciProject('trigger-in-group', ci);
    const child = await fixture.gantry.api('POST', `/projects/${project.id}/repository/commits`, {
      body: { branch: 'main', commit_message: 'child', actions: [{ action: 'create', file_path: 'child.yml', content: 'child-job:\n  script: [echo child]\n' }] },
    });
    assert.equal(child.status, 201, child.text);
    const runner = await fixture.register(project.runners_token);
    const pipelineId = await fixture.runPipeline(project.id);
    const bridgeStatus = async (): Promise<string | undefined> => {
      const bridges = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${pipelineId}/bridges`);
      assert.equal(bridges.status, 200, bridges.text);
      return (bridges.list[0] as { status?: string } | undefined)?.status;
    };
    const [build] = await statusesWhen(fixture, project.id, pipelineId, ['pending'], 'deploy-build pending');
    await waitFor(async () => ((await bridgeStatus()) === 'waiting_for_resource' ? true : undefined), 'the trigger job waiting for the resource');
    const downstream = async () => (await fixture.gantry.api('GET', `/projects/${project.id}/pipelines?source=parent_pipeline`)).list;
    assert.deepEqual(await downstream(), [], 'no child pipeline while the trigger job waits');

    const taken = await fixture.requestJob(runner.token);
    assert.equal(taken.json.id, build!.id);
    await finish(fixture, build!.id, taken.json.token as string);
    await waitFor(async () => ((await bridgeStatus()) === 'success' ? true : undefined), 'the trigger job done once it had the resource');
    assert.equal((await downstream()).length, 1, 'its child pipeline created');
  });
});

describe('resource_group: deleted holders and filters', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture({ extra: { ci: { runTasks: true, taskPollIntervalMs: 30 } } });
  });
  after(() => fixture.close());

  it('re-checks a group whose assignment was lost: the sweep gives the free resource to the waiting job, and the metrics count it waiting', async () => {
    const project = await fixture.ciProject('lost-assignment', ciWithGroup(['deploy-a', 'deploy-b']));
    const pipelineId = await fixture.runPipeline(project.id);
    const [first] = await statusesWhen(fixture, project.id, pipelineId, ['pending', 'waiting_for_resource'], 'deploy-a pending, deploy-b waiting');
    const metrics = await (await fetch(`${fixture.baseUrl}/-/metrics`)).text();
    assert.match(metrics, /^gantry_ci_jobs\{status="waiting_for_resource"\} [1-9]/m);
    // The holder completes without the event that records the group's assignment, as when that task was lost.
    const { coordinator } = fixture.gantry;
    await coordinator.context.stores.jobs.update(first!.id, { status: 'success' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await jobsOf(fixture, project.id, pipelineId))[1]?.status, 'waiting_for_resource', 'nothing else assigns it');
    assert.ok((await ciServicesOf(coordinator).resourceGroupSweep.sweep()) >= 1);
    await statusesWhen(fixture, project.id, pipelineId, ['success', 'pending'], 'deploy-b pending once the sweep re-checked its group');
    assert.equal(await ciServicesOf(coordinator).resourceGroupSweep.sweep(), 0, 'a held group is not due');
  });

  it("lists a waiting pipeline by its status, and gives the resource to another pipeline's job when the holder's pipeline is deleted", async () => {
    const project = await fixture.ciProject('delete-holder', ciWithGroup(['deploy']));
    const holding = await fixture.runPipeline(project.id);
    await statusesWhen(fixture, project.id, holding, ['pending'], 'the first pipeline holds the resource');
    const waiting = await fixture.runPipeline(project.id);
    await statusesWhen(fixture, project.id, waiting, ['waiting_for_resource'], 'the second pipeline waits');
    const listed = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines?status=waiting_for_resource`);
    assert.deepEqual(listed.list.map((pipeline) => pipeline.id), [waiting]);

    assert.equal((await fixture.gantry.api('DELETE', `/projects/${project.id}/pipelines/${holding}`)).status, 204);
    await statusesWhen(fixture, project.id, waiting, ['pending'], "the second pipeline's job pending once the holder is gone");
  });
});

describe('resource_group: holders dropped by the stuck-job sweep', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    // Pending jobs are stuck at once; the sweep runs only when the test calls it.
    const stale = { pendingStuckMs: 1, intervalMs: 3_600_000, handOutIntervalMs: 3_600_000 };
    fixture = await startRunnerJobsFixture({ extra: { ci: { runTasks: true, taskPollIntervalMs: 30, runnerJobs: { stale } } } });
  });
  after(() => fixture.close());

  it('gives the resource to the waiting job when the sweep fails the holder', async () => {
    const project = await fixture.ciProject('swept-holder', ciWithGroup(['first', 'second']));
    const pipelineId = await fixture.runPipeline(project.id);
    await statusesWhen(fixture, project.id, pipelineId, ['pending', 'waiting_for_resource'], 'first pending');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const swept = await ciServicesOf(fixture.gantry.coordinator).staleJobs.sweep();
    assert.equal(swept.stuckPending, 1, 'the waiting job is not swept as stuck');
    const [first] = await statusesWhen(fixture, project.id, pipelineId, ['failed', 'pending'], 'second pending once the sweep failed first');
    assert.equal(first!.failure_reason, 'stuck_or_timeout_failure');
  });
});

describe('resource_group across coordinators', { skip: !postgres && 'needs PostgreSQL: bash scripts/with-postgres.sh' }, () => {
  let pair: Awaited<ReturnType<typeof startTwoCoordinators>> | undefined;

  before(async () => {
    // No task worker: the test makes the assignments itself, all at once.
    pair = await startTwoCoordinators();
  });
  after(async () => {
    await pair?.close();
  });

  it('assigns the resource to one job only, however many assignments race on both coordinators', async () => {
    const { a, b } = pair!;
    const names = ['one', 'two', 'three', 'four'];
    const project = await a.ciProject('race', ciWithGroup(names));
    const runner = await b.register(project.runners_token);
    const pipelineId = await a.runPipeline(project.id);
    assert.deepEqual((await jobsOf(a, project.id, pipelineId)).map((job) => job.status), names.map(() => 'waiting_for_resource'));
    const assignments = [a, b].map((side) => new ResourceGroupAssignment({ processing: ciServicesOf(side.gantry.coordinator).pipelineProcessing }));
    const race = () => Promise.all(Array.from({ length: 16 }, (_, index) => assignments[index % 2]!.assign(project.id, 'production')));

    const first = (await race()).filter((processed) => processed !== undefined);
    assert.equal(first.length, 1, 'one assignment moved a job');
    const afterFirst = await jobsOf(a, project.id, pipelineId);
    assert.deepEqual(afterFirst.map((job) => job.status), ['pending', 'waiting_for_resource', 'waiting_for_resource', 'waiting_for_resource']);

    const taken = await b.requestJob(runner.token);
    assert.equal(taken.json.id, afterFirst[0]!.id);
    assert.equal((await race()).filter((processed) => processed !== undefined).length, 0, 'the running job holds the resource');
    await finish(a, afterFirst[0]!.id, taken.json.token as string);
    // The finish recorded its own assignment task (no worker runs it here): the race decides.
    assert.equal((await race()).filter((processed) => processed !== undefined).length, 1);
    assert.deepEqual((await jobsOf(b, project.id, pipelineId)).map((job) => job.status), ['success', 'pending', 'waiting_for_resource', 'waiting_for_resource']);
  });
});
