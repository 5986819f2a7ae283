import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { finishWithDotenv, startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * GitLab's dynamic environment URL: `environment:url` may name a variable the job's own
 * `artifacts:reports:dotenv` sets; a URL naming a variable not set when the job is created is
 * not the environment's until its deployment succeeds and expands it as written with the job's
 * variables and the report (GitLab's `Deployments::UpdateEnvironmentService`).
 */
const CI = `
review:
  script: ./deploy
  artifacts: { reports: { dotenv: deploy.env } }
  environment:
    name: review/$CI_COMMIT_REF_NAME
    url: https://$DYNAMIC_HOST.$APPS_DOMAIN/
  variables: { APPS_DOMAIN: apps.example.com }
`;

type Payload = { id: number; token: string; job_info: { name: string } };

describe('dynamic environment URLs', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(() => fixture.close());

  const environment = async (projectId: number) => fixture.gantry.coordinator.context.stores.environments.findByName(projectId, 'review/main');

  async function claim(runnerToken: string): Promise<Payload> {
    const answer = await fixture.requestJob(runnerToken);
    assert.equal(answer.status, 201, answer.text);
    return answer.json as Payload;
  }

  const reportAndFinish = async (payload: Payload, report: string | null, state: 'success' | 'failed'): Promise<void> => {
    await finishWithDotenv(fixture, payload, report, state);
  };

  it("takes the URL's missing variables from the job's own dotenv report when its deployment succeeds", async () => {
    const project = await fixture.ciProject('dynamic-url', CI);
    const runner = await fixture.register(project.runners_token);

    await fixture.runPipeline(project.id);
    assert.equal((await environment(project.id))?.external_url, null, 'a URL with a variable not set yet is not saved when the job is created');
    await reportAndFinish(await claim(runner.token), 'DYNAMIC_HOST=pr-1\n', 'success');
    assert.equal((await environment(project.id))?.external_url, 'https://pr-1.apps.example.com/', 'expanded with the report on success');

    await fixture.runPipeline(project.id);
    await reportAndFinish(await claim(runner.token), 'DYNAMIC_HOST=pr-2\n', 'failed');
    assert.equal((await environment(project.id))?.external_url, 'https://pr-1.apps.example.com/', 'a failed deployment renews nothing');
  });
});
