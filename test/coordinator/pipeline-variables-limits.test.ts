import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_PIPELINE_VARIABLES } from '../../src/coordinator/services/ci/pipelines/pipeline-variable-limits.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

const CI = 'build:\n  script: make\n';

/** Pipeline variables: GitLab's `ci_pipeline_variables_count` bound (400), and many variables stored without a 500. */
describe('pipeline variables: count bound', () => {
  let gantry: TestCoordinator;
  let projectId: number;
  let triggerToken: string;
  const variables = (count: number) => Array.from({ length: count }, (_, index) => ({ key: `VAR_${index}`, value: `v${index}` }));
  const tooMany = (count: number) => ({ message: { base: [`The number of pipeline variables (${count}) exceeds the limit of ${MAX_PIPELINE_VARIABLES}`] } });

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { runTasks: false } } });
    const created = await gantry.api('POST', '/projects', { body: { name: 'many-variables', initialize_with_readme: true } });
    projectId = Number(created.json.id);
    const commit = await gantry.api('POST', `/projects/${projectId}/repository/commits`, {
      body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: CI }] },
    });
    assert.equal(commit.status, 201, commit.text);
    const trigger = await gantry.api('POST', `/projects/${projectId}/triggers`, { body: { description: 'bulk' } });
    assert.equal(trigger.status, 201, trigger.text);
    triggerToken = String(trigger.json.token);
  });
  after(() => gantry.close());

  it(`runs a pipeline with ${MAX_PIPELINE_VARIABLES} variables and keeps them all`, async () => {
    const run = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'main', variables: variables(MAX_PIPELINE_VARIABLES) } });
    assert.equal(run.status, 201, run.text.slice(0, 300));
    const stored = await gantry.coordinator.context.stores.pipelineVariables.list(Number(run.json.id));
    assert.equal(stored.length, MAX_PIPELINE_VARIABLES);
  });

  it('refuses more variables than the bound with 400 and GitLab\'s base body (10,000 answered 500 before), creating nothing', async () => {
    const before = (await gantry.coordinator.context.stores.pipelines.list({ projectId }, { offset: 0, limit: 1 })).total;
    for (const count of [MAX_PIPELINE_VARIABLES + 1, 10_000]) {
      const refused = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'main', variables: variables(count) } });
      assert.deepEqual([refused.status, refused.json], [400, tooMany(count)], String(count));
    }
    // Short names: a trigger call carries no credential header, so its body stays under the anonymous body limit (64 KiB).
    const hash = Object.fromEntries(Array.from({ length: MAX_PIPELINE_VARIABLES + 1 }, (_, index) => [`V${index}`, '']));
    const triggered = await gantry.api('POST', `/projects/${projectId}/trigger/pipeline`, { token: null, body: { token: triggerToken, ref: 'main', variables: hash } });
    assert.deepEqual([triggered.status, triggered.json], [400, tooMany(MAX_PIPELINE_VARIABLES + 1)]);
    assert.equal((await gantry.coordinator.context.stores.pipelines.list({ projectId }, { offset: 0, limit: 1 })).total, before);
  });

  it("refuses a schedule's variable over the bound (400): every one of them becomes a variable of its runs", async () => {
    const created = await gantry.api('POST', `/projects/${projectId}/pipeline_schedules`, { body: { description: 'bulk', ref: 'main', cron: '0 3 * * *' } });
    const scheduleId = Number(created.json.id);
    const { schedules } = gantry.coordinator.context.stores;
    const now = new Date().toISOString();
    for (const variable of variables(MAX_PIPELINE_VARIABLES)) await schedules.createVariable(scheduleId, { key: variable.key, value: variable.value, variable_type: 'env_var' }, now);
    const refused = await gantry.api('POST', `/projects/${projectId}/pipeline_schedules/${scheduleId}/variables`, { body: { key: 'ONE_MORE', value: 'x' } });
    assert.deepEqual([refused.status, refused.json], [400, { message: { base: [`A pipeline schedule has at most ${MAX_PIPELINE_VARIABLES} variables`] } }]);
    assert.equal((await schedules.listVariables(scheduleId)).length, MAX_PIPELINE_VARIABLES);
  });
});
