import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EnvironmentRecord } from '../../src/storage/types-environments.ts';
import { existingEnvironment, finishWithDotenv, startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * `environment:auto_stop_in` may name a variable the job's own `artifacts:reports:dotenv` sets,
 * as its URL may: the variables known when the job is created expand then, the rest when its
 * deployment succeeds (GitLab's `Deployments::UpdateEnvironmentService` and
 * `Environment#auto_stop_in=`: `never`, an empty value or zero clear `auto_stop_at`, a value
 * that is not a duration renews nothing).
 */
const CI = `
review:
  script: ./deploy
  artifacts: { reports: { dotenv: deploy.env } }
  environment:
    name: review/$CI_COMMIT_REF_NAME
    url: https://$DYNAMIC_HOST.example.com/
    auto_stop_in: $STOP_IN
`;

type Payload = { id: number; token: string };

const HOUR = 3_600_000;

describe('auto_stop_in from the deploying job\'s dotenv report', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(() => fixture.close());

  const environment = (projectId: number): Promise<EnvironmentRecord> => existingEnvironment(fixture, projectId, 'review/main');

  /** Runs a pipeline, its job reports `report` and ends in `state`; answers the time span it ended in. */
  async function deploy(projectId: number, runnerToken: string, report: string, state: 'success' | 'failed' = 'success'): Promise<{ from: number; to: number }> {
    await fixture.runPipeline(projectId);
    const claimed = await fixture.requestJob(runnerToken);
    assert.equal(claimed.status, 201, claimed.text);
    return finishWithDotenv(fixture, claimed.json as Payload, report, state);
  }

  function assertAround(actual: string | null, span: { from: number; to: number }, offsetMs: number, what: string): void {
    assert.ok(actual, `${what}: set`);
    const at = Date.parse(actual);
    assert.ok(at >= span.from + offsetMs - 1000 && at <= span.to + offsetMs + 1000, `${what}: ${actual}`);
  }

  it('sets auto_stop_at from the report when the deployment succeeds; never, empty and zero clear it', async () => {
    const project = await fixture.ciProject('dynamic-auto-stop', CI);
    const runner = await fixture.register(project.runners_token);

    const first = await deploy(project.id, runner.token, 'DYNAMIC_HOST=pr-1\nSTOP_IN=2 hours\n');
    assertAround((await environment(project.id)).auto_stop_at, first, 2 * HOUR, 'from the report');

    await deploy(project.id, runner.token, 'DYNAMIC_HOST=pr-2\nSTOP_IN=3 hours\n', 'failed');
    assertAround((await environment(project.id)).auto_stop_at, first, 2 * HOUR, 'a failed deployment renews nothing');

    await deploy(project.id, runner.token, 'DYNAMIC_HOST=pr-3\nSTOP_IN=never\n');
    assert.deepEqual(pick(await environment(project.id)), ['https://pr-3.example.com/', null], 'never: no auto-stop');

    await deploy(project.id, runner.token, 'DYNAMIC_HOST=pr-4\nSTOP_IN=1 hour\n');
    assert.notEqual((await environment(project.id)).auto_stop_at, null);
    await deploy(project.id, runner.token, 'DYNAMIC_HOST=pr-5\n');
    assert.deepEqual(pick(await environment(project.id)), ['https://pr-5.example.com/', null], 'unset in the report: empty, no auto-stop');

    await deploy(project.id, runner.token, 'DYNAMIC_HOST=pr-6\nSTOP_IN=1 hour\n');
    await deploy(project.id, runner.token, 'DYNAMIC_HOST=pr-7\nSTOP_IN=0\n');
    assert.deepEqual(pick(await environment(project.id)), ['https://pr-7.example.com/', null], 'zero: no auto-stop');
  });

  it('renews nothing, not even the state, when the report makes auto_stop_in something other than a duration', async () => {
    const project = await fixture.ciProject('dynamic-auto-stop-unreadable', CI);
    const runner = await fixture.register(project.runners_token);
    await deploy(project.id, runner.token, 'DYNAMIC_HOST=pr-1\nSTOP_IN=1 day\n');
    const stopped = await fixture.gantry.api('POST', `/projects/${project.id}/environments/${(await environment(project.id)).id}/stop`);
    assert.equal(stopped.status, 200, stopped.text);
    const before = await environment(project.id);
    assert.deepEqual([before.state, ...pick(before)], ['stopped', 'https://pr-1.example.com/', null]);

    await deploy(project.id, runner.token, 'DYNAMIC_HOST=pr-2\nSTOP_IN=soon\n');
    assert.deepEqual(await environment(project.id), before, 'neither the URL nor the state');

    const redeployed = await deploy(project.id, runner.token, 'DYNAMIC_HOST=pr-3\nSTOP_IN=1 hour\n');
    const after = await environment(project.id);
    assert.deepEqual([after.state, after.external_url], ['available', 'https://pr-3.example.com/']);
    assertAround(after.auto_stop_at, redeployed, HOUR, 'a duration again');
  });
});

function pick(environment: EnvironmentRecord): [string | null, string | null] {
  return [environment.external_url, environment.auto_stop_at];
}
