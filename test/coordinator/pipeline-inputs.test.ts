import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitUntil } from '../helpers/bounded.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

const CI = `spec:
  inputs:
    environment:
      options: [staging, production]
    replicas:
      type: number
      default: 1
    regions:
      type: array
      default: [eu]
    version:
      regex: ^v\\d+$
      default: v1
---
deploy-$[[ inputs.environment ]]-$[[ inputs.version ]]:
  script: echo deploy
  parallel: $[[ inputs.replicas ]]
check:
  script: echo $REGION
  parallel:
    matrix:
      - REGION: $[[ inputs.regions ]]
`;

describe('pipeline inputs: POST /projects/:id/pipeline and trigger tokens give the CI file its spec:inputs', () => {
  let gantry: TestCoordinator;
  let projectId: number;
  const token = 'inputs-trigger-token-0001';

  async function jobNames(pipelineId: number): Promise<string[]> {
    const { items } = await gantry.coordinator.context.stores.jobs.list({ pipelineId, sort: 'asc' }, { offset: 0, limit: 100 });
    return items.map((job) => job.name).sort();
  }

  async function pipelineCount(): Promise<number> {
    return (await gantry.coordinator.context.stores.pipelines.list({ projectId, sort: 'asc' }, { offset: 0, limit: 100 })).items.length;
  }

  before(async () => {
    gantry = await startTestCoordinator();
    const created = await gantry.api('POST', '/projects', { body: { name: 'inputs', initialize_with_readme: true } });
    assert.equal(created.status, 201, created.text);
    projectId = created.json.id as number;
    const commit = await gantry.api('POST', `/projects/${projectId}/repository/commits`, {
      body: { branch: 'main', commit_message: 'ci', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: CI }] },
    });
    assert.equal(commit.status, 201, commit.text);
    // The commit is a push: its pipeline is made by a background task, and fails, since a push
    // gives no inputs. Wait for it, so the counts below see only what the requests made.
    const stores = gantry.coordinator.context.stores;
    await waitUntil(async () => (await stores.pipelines.list({ projectId, sort: 'asc' }, { offset: 0, limit: 10 })).items.some((pipeline) => pipeline.source === 'push'), 'the push pipeline');
    const [push] = (await stores.pipelines.list({ projectId, sort: 'asc' }, { offset: 0, limit: 10 })).items;
    assert.equal(push?.status, 'failed');
    assert.equal(push?.yaml_errors, '`environment` input: required value has not been provided');
    const owner = (await gantry.api('GET', '/user')).json.id as number;
    await gantry.coordinator.context.stores.triggers.create({ project_id: projectId, token, description: 'inputs', owner_id: owner, created_at: new Date().toISOString() });
  });

  after(async () => {
    await gantry.close();
  });

  it('compiles the file with the inputs of a JSON body (numbers, text that is a JSON array)', async () => {
    const answer = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'main', inputs: { environment: 'production', replicas: 2, regions: '["eu", "us"]', version: 'v2' } } });
    assert.equal(answer.status, 201, answer.text);
    assert.deepEqual(await jobNames(answer.json.id as number), ['check: [eu]', 'check: [us]', 'deploy-production-v2 1/2', 'deploy-production-v2 2/2']);
  });

  it('refuses each invalid input with GitLab\'s message, saving nothing', async () => {
    const before = await pipelineCount();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ replicas: 2 }, '`environment` input: required value has not been provided'],
      [{ environment: 'staging', nope: 'x' }, 'unknown input arguments: nope'],
      [{ environment: 'staging', replicas: 'three' }, '`replicas` input: provided value is not a number'],
      [{ environment: 'review' }, '`environment` input: `review` cannot be used because it is not in the list of allowed options'],
      [{ environment: 'staging', version: 'release-2' }, '`version` input: provided value does not match required RegEx pattern'],
    ];
    for (const [inputs, message] of cases) {
      const answer = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'main', inputs } });
      assert.equal(answer.status, 400, answer.text);
      assert.deepEqual(answer.json, { message: { base: [message] } }, JSON.stringify(inputs));
    }
    const withoutInputs = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'main' } });
    assert.deepEqual(withoutInputs.json, { message: { base: ['`environment` input: required value has not been provided'] } });
    assert.equal(await pipelineCount(), before);
  });

  it('takes form inputs with a trigger token (inputs[NAME]=value, JSON text parsed), and saves a failed pipeline for a bad one', async () => {
    const form = { token, ref: 'main', 'inputs[environment]': 'staging', 'inputs[replicas]': '3', 'inputs[regions]': '["us"]' };
    const answer = await gantry.api('POST', `/projects/${projectId}/trigger/pipeline`, { token: null, form });
    assert.equal(answer.status, 201, answer.text);
    assert.equal(answer.json.source, 'trigger');
    assert.deepEqual(await jobNames(answer.json.id as number), ['check: [us]', 'deploy-staging-v1 1/3', 'deploy-staging-v1 2/3', 'deploy-staging-v1 3/3']);

    const inPath = await gantry.api('POST', `/projects/${projectId}/ref/main/trigger/pipeline`, { token: null, body: { token, inputs: { environment: 'production', regions: ['us', 'ap'] } } });
    assert.equal(inPath.status, 201, inPath.text);
    assert.deepEqual(await jobNames(inPath.json.id as number), ['check: [ap]', 'check: [us]', 'deploy-production-v1 1/1']);

    const bad = await gantry.api('POST', `/projects/${projectId}/trigger/pipeline`, { token: null, form: { token, ref: 'main', 'inputs[environment]': 'review' } });
    assert.equal(bad.status, 201, bad.text);
    assert.equal(bad.json.status, 'failed');
    assert.equal(bad.json.yaml_errors, '`environment` input: `review` cannot be used because it is not in the list of allowed options');
  });
});
