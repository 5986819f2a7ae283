import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addCiVariable, claimedVariables, startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * The protected-variable rule end to end: a protected group (or project) variable reaches
 * neither the pipeline's `rules:` nor any job payload on an unprotected ref, and reaches both
 * once the ref is protected. Unprotected ones reach every ref.
 */
const CI = `
unit:
  script: make test
gated:
  script: ./deploy
  rules:
    - if: $GROUP_SECRET
`;

describe('protected CI variables', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(() => fixture.close());

  const addVariable = (scope: string, key: string, value: string, isProtected = false) => addCiVariable(fixture, scope, key, value, isProtected);
  const runAndClaim = (projectId: number, runnerToken: string) => claimedVariables(fixture, projectId, runnerToken, ['GROUP_SECRET', 'GROUP_OPEN', 'PROJECT_SECRET']);

  it('keeps protected group and project variables from an unprotected ref, in rules and payloads alike', async () => {
    const project = await fixture.ciProject('protected-variables', CI);
    const runner = await fixture.register(project.runners_token);
    await addVariable(`/groups/${fixture.groupId}`, 'GROUP_SECRET', 'group-secret', true);
    await addVariable(`/groups/${fixture.groupId}`, 'GROUP_OPEN', 'group-open', false);
    await addVariable(`/projects/${project.id}`, 'PROJECT_SECRET', 'project-secret', true);

    assert.deepEqual(await runAndClaim(project.id, runner.token), { unit: { GROUP_OPEN: 'group-open' } }, 'on an unprotected ref: no gated job, no secret');

    const protectedBranch = await fixture.gantry.api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'main' } });
    assert.equal(protectedBranch.status, 201, protectedBranch.text);
    const all = { GROUP_SECRET: 'group-secret', GROUP_OPEN: 'group-open', PROJECT_SECRET: 'project-secret' };
    assert.deepEqual(await runAndClaim(project.id, runner.token), { unit: all, gated: all }, 'on a protected ref: both');
  });
});
