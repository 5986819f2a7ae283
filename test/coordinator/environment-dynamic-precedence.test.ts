import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { environmentSlug } from '../../src/ci/slug.ts';
import type { EnvironmentRecord } from '../../src/storage/types-environments.ts';
import { addCiVariable, existingEnvironment, finishWithDotenv, startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * A deployment's success expands its job's `environment:url` and `auto_stop_in` as written with
 * all of the job's variables, as GitLab's `Deployments::UpdateEnvironmentService` does with
 * `Ci::Build#variables`: a variable set when the job is created does not shadow a dotenv
 * report's value. Later wins: predefined and CI file variables, the dependencies' reports,
 * instance/group/project/pipeline variables, the job's own report, then CI_ENVIRONMENT_NAME
 * and CI_ENVIRONMENT_SLUG.
 */
function ci(url: string): string {
  return `
stages: [build, deploy]
variables:
  DYNAMIC_URL: https://from-file.example.com/
  DYNAMIC_HOST: from-file.example.com
  STOP_IN: 1 hour
build:
  stage: build
  script: ./build
  artifacts: { reports: { dotenv: build.env } }
review:
  stage: deploy
  script: ./deploy
  artifacts: { reports: { dotenv: deploy.env } }
  environment:
    name: review/$CI_COMMIT_REF_NAME
    url: ${url}
    auto_stop_in: $STOP_IN
`;
}

type Payload = { id: number; token: string; job_info: { name: 'build' | 'review' } };

const HOUR = 3_600_000;

describe('environment URL and auto_stop_in: dotenv reports over the variables known at creation', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(() => fixture.close());

  const environment = (projectId: number): Promise<EnvironmentRecord> => existingEnvironment(fixture, projectId, 'review/main');

  /** Claims the next job (it must be `name`), uploads its dotenv report when given and has it succeed; answers it and the time span it succeeded in. */
  async function succeed(runnerToken: string, name: Payload['job_info']['name'], report: string | null): Promise<{ jobId: number; from: number; to: number }> {
    const claimed = await fixture.requestJob(runnerToken);
    assert.equal(claimed.status, 201, claimed.text);
    const payload = claimed.json as Payload;
    assert.equal(payload.job_info.name, name);
    return { jobId: payload.id, ...(await finishWithDotenv(fixture, payload, report)) };
  }

  /** One pipeline: build, then review, each with its report (none when null). */
  async function deploy(projectId: number, runnerToken: string, reports: { build: string | null; review: string | null }): Promise<{ jobId: number; from: number; to: number }> {
    await fixture.runPipeline(projectId);
    await succeed(runnerToken, 'build', reports.build);
    return succeed(runnerToken, 'review', reports.review);
  }

  function assertAround(actual: string | null, span: { from: number; to: number }, offsetMs: number, what: string): void {
    assert.ok(actual, `${what}: set`);
    const at = Date.parse(actual);
    assert.ok(at >= span.from + offsetMs - 1000 && at <= span.to + offsetMs + 1000, `${what}: ${actual}`);
  }

  it("takes the job's own report's value over the CI file's", async () => {
    const project = await fixture.ciProject('precedence-own', ci('$DYNAMIC_URL'));
    const runner = await fixture.register(project.runners_token);

    await fixture.runPipeline(project.id);
    const created = await environment(project.id);
    assert.equal(created.external_url, null, 'a new environment has no URL before a deployment succeeds');
    await succeed(runner.token, 'build', null);
    const span = await succeed(runner.token, 'review', 'DYNAMIC_URL=https://from-report.example.com/\nSTOP_IN=3 hours\n');
    const renewed = await environment(project.id);
    assert.equal(renewed.external_url, 'https://from-report.example.com/', "the job's report over the CI file's variable");
    assertAround(renewed.auto_stop_at, span, 3 * HOUR, "auto_stop_in: the job's report over the CI file's variable");

    const withoutReport = await deploy(project.id, runner.token, { build: null, review: null });
    const again = await environment(project.id);
    assert.equal(again.external_url, 'https://from-file.example.com/', 'without a report, the CI file\'s value');
    assertAround(again.auto_stop_at, withoutReport, HOUR, "auto_stop_in without a report: the CI file's value");

    const retried = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${withoutReport.jobId}/retry`);
    assert.equal(retried.status, 201, retried.text);
    await succeed(runner.token, 'review', 'DYNAMIC_URL=https://from-retry.example.com/\n');
    assert.equal((await environment(project.id)).external_url, 'https://from-retry.example.com/', "a retry's report over the CI file's variable too");
  });

  it("takes a dependency's report over the CI file's value, and the job's own over the dependency's", async () => {
    const project = await fixture.ciProject('precedence-dependency', ci('$DYNAMIC_URL'));
    const runner = await fixture.register(project.runners_token);

    const first = await deploy(project.id, runner.token, { build: 'DYNAMIC_URL=https://from-build.example.com/\nSTOP_IN=2 hours\n', review: null });
    const fromDependency = await environment(project.id);
    assert.equal(fromDependency.external_url, 'https://from-build.example.com/', "the dependency's report over the CI file's variable");
    assertAround(fromDependency.auto_stop_at, first, 2 * HOUR, "auto_stop_in: the dependency's report over the CI file's variable");

    await deploy(project.id, runner.token, { build: 'DYNAMIC_URL=https://from-build.example.com/\n', review: 'DYNAMIC_URL=https://from-review.example.com/\n' });
    assert.equal((await environment(project.id)).external_url, 'https://from-review.example.com/', "the job's own report over its dependency's");
  });

  it("keeps a project variable over a dependency's report, not over the job's own", async () => {
    const project = await fixture.ciProject('precedence-settings', ci('$DYNAMIC_URL'));
    await addCiVariable(fixture, `/projects/${project.id}`, 'DYNAMIC_URL', 'https://from-project.example.com/');
    const runner = await fixture.register(project.runners_token);

    await deploy(project.id, runner.token, { build: 'DYNAMIC_URL=https://from-build.example.com/\n', review: null });
    assert.equal((await environment(project.id)).external_url, 'https://from-project.example.com/', "GitLab lists project variables after the dependencies' dotenv variables");

    await deploy(project.id, runner.token, { build: 'DYNAMIC_URL=https://from-build.example.com/\n', review: 'DYNAMIC_URL=https://from-review.example.com/\n' });
    assert.equal((await environment(project.id)).external_url, 'https://from-review.example.com/', "the job's own report over a project variable");
  });

  it('never lets a report override CI_ENVIRONMENT_NAME or CI_ENVIRONMENT_SLUG', async () => {
    const project = await fixture.ciProject('precedence-environment', ci('https://$CI_ENVIRONMENT_SLUG.$DYNAMIC_HOST/$CI_ENVIRONMENT_NAME'));
    const runner = await fixture.register(project.runners_token);

    await deploy(project.id, runner.token, {
      build: 'CI_ENVIRONMENT_NAME=from-build\nCI_ENVIRONMENT_SLUG=from-build\n',
      review: 'CI_ENVIRONMENT_NAME=from-review\nCI_ENVIRONMENT_SLUG=from-review\nDYNAMIC_HOST=from-review.example.com\n',
    });
    assert.equal(
      (await environment(project.id)).external_url, `https://${environmentSlug('review/main')}.from-review.example.com/review/main`,
      "the environment's own variables stay; the report's other variable wins",
    );
  });
});
