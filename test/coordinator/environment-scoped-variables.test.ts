import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * Project variables with an `environment_scope` reach a job through its payload
 * (POST /jobs/request) only when the job's environment matches the scope: exactly, or by a
 * `*` pattern; the most specific scope wins among variables of one key; `*` reaches every
 * job; protected ones only on protected refs.
 */
const CI = `
stages: [test]
unit:
  script: make test
review:
  script: ./review
  environment: review/$CI_COMMIT_REF_NAME
staging:
  script: ./staging
  environment: { name: staging, url: "https://staging.example.com" }
production:
  script: ./ship
  environment: production
`;

type Variables = Map<string, string>;

describe('environment-scoped project variables', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(() => fixture.close());

  async function addVariable(projectId: number, key: string, value: string, scope: string, isProtected = false): Promise<void> {
    const created = await fixture.gantry.api('POST', `/projects/${projectId}/variables`, { body: { key, value, environment_scope: scope, protected: isProtected } });
    assert.equal(created.status, 201, created.text);
  }

  /** Runs a pipeline and claims all its jobs: each job's payload variables, by job name. */
  async function payloadVariables(projectId: number, runnerToken: string): Promise<Record<string, Variables>> {
    await fixture.runPipeline(projectId);
    const byJob: Record<string, Variables> = {};
    for (let index = 0; index < 4; index++) {
      const response = await fixture.requestJob(runnerToken);
      assert.equal(response.status, 201, response.text);
      const variables = response.json.variables as Array<{ key: string; value: string }>;
      byJob[(response.json.job_info as { name: string }).name] = new Map(variables.map((variable) => [variable.key, variable.value]));
    }
    assert.equal((await fixture.requestJob(runnerToken)).status, 204);
    return byJob;
  }

  const valuesOf = (byJob: Record<string, Variables>, key: string) => Object.fromEntries(['unit', 'review', 'staging', 'production'].map((name) => [name, byJob[name]?.get(key) ?? null]));

  it('gives each job the variables of its environment, the most specific scope winning', async () => {
    const project = await fixture.ciProject('scoped', CI);
    const runner = await fixture.register(project.runners_token);
    await addVariable(project.id, 'EVERYWHERE', 'all', '*');
    await addVariable(project.id, 'DEPLOY_URL', 'default', '*');
    await addVariable(project.id, 'DEPLOY_URL', 'any-review', 'review/*');
    await addVariable(project.id, 'DEPLOY_URL', 'this-review', 'review/main');
    await addVariable(project.id, 'DEPLOY_URL', 'prod', 'production');
    await addVariable(project.id, 'REVIEW_ONLY', 'r', 'review/*');
    await addVariable(project.id, 'PATTERNS', 'ends-in-main', '*/main');
    await addVariable(project.id, 'PATTERNS', 'review-prefix', 'review/*');
    await addVariable(project.id, 'STAGING_ONLY', 's', 'staging');
    await addVariable(project.id, 'NO_MATCH', 'x', 'prod*x');

    const byJob = await payloadVariables(project.id, runner.token);
    assert.deepEqual(valuesOf(byJob, 'EVERYWHERE'), { unit: 'all', review: 'all', staging: 'all', production: 'all' });
    assert.deepEqual(valuesOf(byJob, 'DEPLOY_URL'), { unit: 'default', review: 'this-review', staging: 'default', production: 'prod' });
    assert.deepEqual(valuesOf(byJob, 'REVIEW_ONLY'), { unit: null, review: 'r', staging: null, production: null });
    assert.deepEqual(valuesOf(byJob, 'PATTERNS'), { unit: null, review: 'review-prefix', staging: null, production: null }, 'more literal characters win');
    assert.deepEqual(valuesOf(byJob, 'STAGING_ONLY'), { unit: null, review: null, staging: 's', production: null });
    assert.deepEqual(valuesOf(byJob, 'NO_MATCH'), { unit: null, review: null, staging: null, production: null });
    assert.equal(byJob.review?.get('CI_ENVIRONMENT_NAME'), 'review/main');
    const deployUrls = [...byJob.production!.entries()].filter(([key]) => key === 'DEPLOY_URL');
    assert.equal(deployUrls.length, 1, 'one DEPLOY_URL per job (the winner), not one per scope');
  });

  it('keeps protected scoped variables to protected refs, where they win again', async () => {
    const project = await fixture.ciProject('scoped-protected', CI);
    const runner = await fixture.register(project.runners_token);
    await addVariable(project.id, 'TOKEN', 'open', '*');
    await addVariable(project.id, 'TOKEN', 'prod-secret', 'production', true);
    await addVariable(project.id, 'PROD_ONLY', 'hidden', 'production', true);

    const unprotected = await payloadVariables(project.id, runner.token);
    assert.deepEqual(valuesOf(unprotected, 'TOKEN'), { unit: 'open', review: 'open', staging: 'open', production: 'open' });
    assert.deepEqual(valuesOf(unprotected, 'PROD_ONLY'), { unit: null, review: null, staging: null, production: null });

    const protectedBranch = await fixture.gantry.api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'main' } });
    assert.equal(protectedBranch.status, 201, protectedBranch.text);
    const onProtected = await payloadVariables(project.id, runner.token);
    assert.deepEqual(valuesOf(onProtected, 'TOKEN'), { unit: 'open', review: 'open', staging: 'open', production: 'prod-secret' });
    assert.deepEqual(valuesOf(onProtected, 'PROD_ONLY'), { unit: null, review: null, staging: null, production: 'hidden' });
  });
});
