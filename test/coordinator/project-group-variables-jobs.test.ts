import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startContract, type Contract } from '../helpers/runner-contract.ts';
import { startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * Raw and hidden project and group variables on their way to the runner: a raw one carries
 * `raw: true` and keeps its `$` references (the coordinator expands the others' references
 * against the variables before them, GitLab's `sort_and_expand_all`); a hidden one, whose value
 * no API answer shows, reaches the job as a masked variable with its real value.
 */
const SECRET = 'aGlkZGVuLXNlY3JldA==';
const CI = `
show:
  script:
    - echo "raw=$RAW_P expanded=$EXPANDED_P group_raw=$RAW_G group_expanded=$EXPANDED_G hidden=$HIDDEN_P"
`;

interface PayloadVariable {
  key: string;
  value: string;
  masked?: boolean;
  raw?: boolean;
}

describe('raw and hidden project and group variables in job payloads', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(() => fixture.close());

  async function add(scope: string, body: Record<string, unknown>): Promise<void> {
    const created = await fixture.gantry.api('POST', `${scope}/variables`, { body });
    assert.equal(created.status, 201, created.text);
  }

  it('sends a raw one with raw: true and its references as written, the others expanded; a hidden one masked, with its value', async () => {
    const project = await fixture.ciProject('raw-hidden', CI);
    const runner = await fixture.register(project.runners_token);
    const group = `/groups/${fixture.groupId}`;
    await add(group, { key: 'BASE_G', value: 'group-base' });
    await add(group, { key: 'RAW_G', value: '$BASE_G-kept', raw: true });
    await add(group, { key: 'EXPANDED_G', value: '$BASE_G-expanded' });
    const own = `/projects/${project.id}`;
    await add(own, { key: 'BASE_P', value: 'project-base' });
    await add(own, { key: 'RAW_P', value: '${BASE_P}-kept', raw: true });
    await add(own, { key: 'EXPANDED_P', value: '${BASE_P}-expanded', raw: false });
    await add(own, { key: 'HIDDEN_P', value: SECRET, masked_and_hidden: true });

    await fixture.runPipeline(project.id);
    const claimed = await fixture.requestJob(runner.token);
    assert.equal(claimed.status, 201, claimed.text);
    const variables = new Map((claimed.json.variables as PayloadVariable[]).map((variable) => [variable.key, variable]));
    const shape = (key: string) => {
      const variable = variables.get(key);
      assert.ok(variable, key);
      return { value: variable.value, masked: variable.masked, raw: variable.raw ?? false };
    };
    assert.deepEqual(shape('RAW_G'), { value: '$BASE_G-kept', masked: false, raw: true });
    assert.deepEqual(shape('EXPANDED_G'), { value: 'group-base-expanded', masked: false, raw: false });
    assert.deepEqual(shape('RAW_P'), { value: '${BASE_P}-kept', masked: false, raw: true });
    assert.deepEqual(shape('EXPANDED_P'), { value: 'project-base-expanded', masked: false, raw: false });
    assert.deepEqual(shape('HIDDEN_P'), { value: SECRET, masked: true, raw: false });
  });
});

describe('raw and hidden project variables in a job a runner runs', () => {
  let contract: Contract;

  before(async () => {
    contract = await startContract({ executor: 'shell' });
  });
  after(() => contract.close());

  it('prints the raw one unexpanded, the other expanded, the hidden one masked', async () => {
    const { projectId, pipelineId } = await contract.project('raw-hidden-run', { '.gitlab-ci.yml': CI }, [
      { key: 'RAW_P', value: '$CI_JOB_STAGE-kept', raw: true },
      { key: 'EXPANDED_P', value: '$CI_JOB_STAGE-expanded' },
      { key: 'HIDDEN_P', value: SECRET, masked_and_hidden: true },
    ]);
    const { status, jobs } = await contract.finished(projectId, pipelineId);
    assert.equal(status, 'success');
    const trace = await contract.trace(projectId, Number(jobs[0]!.id));
    assert.match(trace, /^raw=\$CI_JOB_STAGE-kept expanded=test-expanded group_raw= group_expanded= hidden=\[MASKED\]\r?$/m);
    assert.ok(!trace.includes(SECRET), 'the hidden value never shows');
  });
});
