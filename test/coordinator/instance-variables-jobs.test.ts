import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startContract, type Contract } from '../helpers/runner-contract.ts';
import { addCiVariable, claimedVariables, startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * Instance variables in pipelines: below group and project variables of the same key, protected
 * ones only on protected refs (in `rules:` and payloads alike), masked ones masked in the trace
 * and raw ones left unexpanded by the runner.
 */
const KEYS = ['SHARED', 'GROUP_OVER', 'INSTANCE_ONLY', 'INSTANCE_SECRET'];
const RULES_CI = `
unit:
  script: make test
gated:
  script: ./deploy
  rules:
    - if: $INSTANCE_SECRET
`;

describe('instance variables in job payloads', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(() => fixture.close());

  const addVariable = (scope: string, key: string, value: string, isProtected = false) => addCiVariable(fixture, scope, key, value, isProtected);
  const runAndClaim = (projectId: number, runnerToken: string) => claimedVariables(fixture, projectId, runnerToken, KEYS);

  it('gives them below group and project variables, and protected ones only on protected refs', async () => {
    await addVariable('/admin/ci', 'SHARED', 'instance');
    await addVariable('/admin/ci', 'GROUP_OVER', 'instance');
    await addVariable('/admin/ci', 'INSTANCE_ONLY', 'instance-only');
    await addVariable('/admin/ci', 'INSTANCE_SECRET', 'instance-secret', true);
    await addVariable(`/groups/${fixture.groupId}`, 'GROUP_OVER', 'group');
    const overriding = await fixture.ciProject('overriding', RULES_CI);
    await addVariable(`/projects/${overriding.id}`, 'SHARED', 'project');
    const plain = await fixture.ciProject('plain', RULES_CI);
    const overridingRunner = await fixture.register(overriding.runners_token);
    const plainRunner = await fixture.register(plain.runners_token);

    const open = { SHARED: 'project', GROUP_OVER: 'group', INSTANCE_ONLY: 'instance-only' };
    assert.deepEqual(await runAndClaim(overriding.id, overridingRunner.token), { unit: open }, 'unprotected ref: no gated job, no secret');
    assert.deepEqual(await runAndClaim(plain.id, plainRunner.token), { unit: { ...open, SHARED: 'instance' } }, 'no project variable: the instance one');

    const protectedBranch = await fixture.gantry.api('POST', `/projects/${overriding.id}/protected_branches`, { body: { name: 'main' } });
    assert.equal(protectedBranch.status, 201, protectedBranch.text);
    const all = { ...open, INSTANCE_SECRET: 'instance-secret' };
    assert.deepEqual(await runAndClaim(overriding.id, overridingRunner.token), { unit: all, gated: all }, 'protected ref: the secret, in rules too');

    const deleted = await fixture.gantry.api('DELETE', '/admin/ci/variables/INSTANCE_ONLY');
    assert.equal(deleted.status, 204);
    const { INSTANCE_ONLY: _gone, ...left } = open;
    assert.deepEqual(await runAndClaim(plain.id, plainRunner.token), { unit: { ...left, SHARED: 'instance' } }, 'a deleted one is gone from the next pipeline');
  });
});

describe('instance variables in a job a runner runs', () => {
  let contract: Contract;
  const SECRET = 'Zm9vYmFyYmF6cXV4';
  const CI = `
show:
  script:
    - echo "greeting=$GREETING_I shared=$SHARED secret=$SECRET_I raw=$RAW_I expanded=$EXPANDED_I"
`;

  before(async () => {
    contract = await startContract({ executor: 'shell' });
    const variables = [
      { key: 'GREETING_I', value: 'hello-instance' },
      { key: 'SHARED', value: 'from-instance' },
      { key: 'SECRET_I', value: SECRET, masked: true },
      { key: 'RAW_I', value: '$CI_JOB_STAGE-kept', raw: true },
      { key: 'EXPANDED_I', value: '$CI_JOB_STAGE-expanded' },
    ];
    for (const body of variables) {
      const created = await contract.test.api('POST', '/admin/ci/variables', { body });
      assert.equal(created.status, 201, created.text);
    }
  });
  after(() => contract.close());

  async function traceOf(name: string, projectVariables: Array<{ key: string; value: string }> = []): Promise<string> {
    const { projectId, pipelineId } = await contract.project(name, { '.gitlab-ci.yml': CI }, projectVariables);
    const { status, jobs } = await contract.finished(projectId, pipelineId);
    assert.equal(status, 'success');
    return contract.trace(projectId, Number(jobs[0]!.id));
  }

  it('prints them, the masked one masked and the raw one unexpanded', async () => {
    const trace = await traceOf('instance-plain');
    assert.match(trace, /^greeting=hello-instance shared=from-instance secret=\[MASKED\] raw=\$CI_JOB_STAGE-kept expanded=test-expanded\r?$/m);
    assert.ok(!trace.includes(SECRET), 'the masked value never shows');
  });

  it('prints the project variable of the same key instead, in another pipeline', async () => {
    const trace = await traceOf('instance-overridden', [{ key: 'SHARED', value: 'from-project' }]);
    assert.match(trace, /^greeting=hello-instance shared=from-project secret=\[MASKED\] /m);
  });
});
