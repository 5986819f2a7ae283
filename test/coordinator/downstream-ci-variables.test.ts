import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDownstreamFixture, type DownstreamFixture } from './downstream-fixtures.ts';

/**
 * A bridge expands its variables with the CI/CD variables that reach it too, as GitLab's
 * `Ci::Bridge#variables` does (protected ones on protected refs only, environment-scoped ones
 * by its environment), leaves a file variable's reference as written (`expand_file_refs:
 * false`), and expands the upstream pipeline's variables it forwards.
 */
const CONFIG = `
trigger-child:
  variables:
    TARGET: $DEPLOY_TARGET
    GUARDED: x$SECRET_PROTECTED
    CFG: $CONFIG_FILE
    SCOPED_VALUE: $SCOPED
  environment: review/$CI_COMMIT_REF_NAME
  trigger:
    include: ci/child.yml
    forward: { pipeline_variables: true }
`;

describe("CI/CD variables in a bridge's expansion", () => {
  let fixture: DownstreamFixture;
  let project: { id: number; path: string };

  before(async () => {
    fixture = await startDownstreamFixture();
    project = await fixture.project('bridge-settings');
  });
  after(() => fixture.close());

  async function addVariable(body: Record<string, unknown>): Promise<void> {
    const created = await fixture.gantry.api('POST', `/projects/${project.id}/variables`, { body });
    assert.equal(created.status, 201, created.text);
  }

  it('expands with the project variables that reach the bridge and passes a file variable as written', async () => {
    await addVariable({ key: 'DEPLOY_TARGET', value: 'staging' });
    await addVariable({ key: 'SECRET_PROTECTED', value: 'p', protected: true });
    await addVariable({ key: 'CONFIG_FILE', value: 'contents', variable_type: 'file' });
    await addVariable({ key: 'SCOPED', value: 'wide', environment_scope: '*' });
    await addVariable({ key: 'SCOPED', value: 'review', environment_scope: 'review/*' });
    await fixture.commit(project.id, 'settings', { '.gitlab-ci.yml': CONFIG, 'ci/child.yml': 'child-job:\n  script: echo "$TARGET"\n' });

    const created = await fixture.gantry.api('POST', `/projects/${project.id}/pipeline`, {
      body: { ref: 'settings', variables: [{ key: 'UPSTREAM', value: '$DEPLOY_TARGET-x' }] },
    });
    assert.equal(created.status, 201, created.text);
    const bridge = await fixture.jobWhen(created.json.id as number, 'trigger-child', (job) => job.status === 'success', 'success once its child exists');
    const child = await fixture.downstreamOf(bridge);
    const variables = Object.fromEntries((await fixture.gantry.coordinator.context.stores.pipelineVariables.list(child.id)).map((variable) => [variable.key, variable.value]));
    assert.deepEqual(variables, {
      TARGET: 'staging',
      GUARDED: 'x',
      CFG: '$CONFIG_FILE',
      SCOPED_VALUE: 'review',
      UPSTREAM: 'staging-x',
    }, 'a protected variable does not reach an unprotected ref; the review/* scope is the closer one');
  });
});
