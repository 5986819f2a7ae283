import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EnvironmentRecord } from '../../src/storage/types-environments.ts';
import { existingEnvironment, finishWithDotenv, startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * A deployment's success expands its job's `environment:url` and `auto_stop_in` with the
 * dotenv reports of the jobs whose artifacts it takes too, as GitLab expands them with
 * all of the job's variables: its dependencies' report variables, then its own report's, which
 * win (`dependency_variables` sit in its scoped variables, its own `job_variables` after them).
 */
function ci(dependencies: string): string {
  return `
stages: [build, deploy]
build:
  stage: build
  script: ./build
  artifacts: { reports: { dotenv: build.env } }
assets:
  stage: build
  script: ./assets
  artifacts: { reports: { dotenv: assets.env } }
review:
  stage: deploy
  script: ./deploy
  ${dependencies}
  artifacts: { reports: { dotenv: deploy.env } }
  environment:
    name: review/$CI_COMMIT_REF_NAME
    url: https://$DYNAMIC_HOST.$APPS_DOMAIN/
    auto_stop_in: $STOP_IN
  variables: { APPS_DOMAIN: apps.example.com }
`;
}

type Payload = { id: number; token: string; job_info: { name: 'build' | 'assets' | 'review' } };

const HOUR = 3_600_000;

describe("environment URL and auto_stop_in from the dependencies' dotenv reports", () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(() => fixture.close());

  const environment = (projectId: number): Promise<EnvironmentRecord> => existingEnvironment(fixture, projectId, 'review/main');

  async function claim(runnerToken: string): Promise<Payload> {
    const claimed = await fixture.requestJob(runnerToken);
    assert.equal(claimed.status, 201, claimed.text);
    return claimed.json as Payload;
  }

  const succeed = (payload: Payload, report: string | null): Promise<{ from: number; to: number }> => finishWithDotenv(fixture, payload, report);

  /** Runs the build stage's two jobs, in the order the runner gets them, each with its report (none when null). */
  async function runBuildStage(runnerToken: string, reports: Record<'build' | 'assets', string | null>): Promise<void> {
    for (let claimed = 0; claimed < 2; claimed += 1) {
      const payload = await claim(runnerToken);
      assert.ok(payload.job_info.name === 'build' || payload.job_info.name === 'assets', payload.job_info.name);
      await succeed(payload, reports[payload.job_info.name]);
    }
  }

  async function runReview(runnerToken: string, report: string | null): Promise<{ from: number; to: number }> {
    const payload = await claim(runnerToken);
    assert.equal(payload.job_info.name, 'review');
    return succeed(payload, report);
  }

  function assertAround(actual: string | null, span: { from: number; to: number }, offsetMs: number, what: string): void {
    assert.ok(actual, `${what}: set`);
    const at = Date.parse(actual);
    assert.ok(at >= span.from + offsetMs - 1000 && at <= span.to + offsetMs + 1000, `${what}: ${actual}`);
  }

  it("expands them with an earlier stage's report; of one key, the job's own report wins", async () => {
    const project = await fixture.ciProject('dynamic-dependencies', ci(''));
    const runner = await fixture.register(project.runners_token);

    await fixture.runPipeline(project.id);
    await runBuildStage(runner.token, { build: 'DYNAMIC_HOST=from-build\nSTOP_IN=2 hours\n', assets: null });
    const first = await runReview(runner.token, null);
    const afterFirst = await environment(project.id);
    assert.equal(afterFirst.external_url, 'https://from-build.apps.example.com/', "the dependency's report expands the URL");
    assertAround(afterFirst.auto_stop_at, first, 2 * HOUR, "the dependency's report expands auto_stop_in");

    await fixture.runPipeline(project.id);
    await runBuildStage(runner.token, { build: 'DYNAMIC_HOST=from-build\nSTOP_IN=3 hours\n', assets: null });
    const second = await runReview(runner.token, 'DYNAMIC_HOST=own\n');
    const afterSecond = await environment(project.id);
    assert.equal(afterSecond.external_url, 'https://own.apps.example.com/', "the job's own report over its dependency's");
    assertAround(afterSecond.auto_stop_at, second, 3 * HOUR, "a key only the dependency's report sets still expands");

    await fixture.runPipeline(project.id);
    await runBuildStage(runner.token, { build: 'DYNAMIC_HOST=from-build\nSTOP_IN=1 hour\n', assets: 'DYNAMIC_HOST=from-assets\n' });
    await runReview(runner.token, null);
    assert.equal((await environment(project.id)).external_url, 'https://from-assets.apps.example.com/', 'of two dependencies, the newer job (assets, created after build) wins');
  });

  it('takes only the reports of the jobs it takes artifacts from (dependencies:)', async () => {
    const project = await fixture.ciProject('dynamic-named-dependencies', ci('dependencies: [assets]'));
    const runner = await fixture.register(project.runners_token);

    await fixture.runPipeline(project.id);
    await runBuildStage(runner.token, { build: 'DYNAMIC_HOST=from-build\nSTOP_IN=2 hours\n', assets: 'DYNAMIC_HOST=from-assets\n' });
    await runReview(runner.token, null);
    const renewed = await environment(project.id);
    assert.deepEqual([renewed.external_url, renewed.auto_stop_at], ['https://from-assets.apps.example.com/', null], 'STOP_IN, set by build only, expands to nothing: no auto-stop');
  });
});
