import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDownstreamFixture, type DownstreamFixture } from './downstream-fixtures.ts';

const LIB_CI = `spec:
  inputs:
    env:
      options: [staging, production]
    count:
      type: number
      default: 1
    note:
      default: none
---
deploy-$[[ inputs.env ]]:
  script: echo $[[ inputs.note ]]
  parallel: $[[ inputs.count ]]
`;

describe('trigger:inputs: a multi-project bridge gives the downstream CI file its spec:inputs', () => {
  let fixture: DownstreamFixture;
  let app: { id: number; path: string };
  let lib: { id: number; path: string };

  before(async () => {
    fixture = await startDownstreamFixture();
    app = await fixture.project('app');
    lib = await fixture.project('lib');
    await fixture.commit(lib.id, 'with-spec', { '.gitlab-ci.yml': LIB_CI });
  });
  after(() => fixture.close());

  function bridgeConfig(inputs: string): string {
    return `variables:\n  NOTE: upstream\ndeploy-lib:\n  trigger:\n    project: ${lib.path}\n    branch: with-spec\n    inputs:\n${inputs}`;
  }

  it('compiles the downstream pipeline with the inputs as written (a $VARIABLE not expanded)', async () => {
    const sha = await fixture.commit(app.id, 'good', { '.gitlab-ci.yml': bridgeConfig('      env: production\n      count: 2\n      note: $NOTE\n') });
    const upstream = await fixture.pushPipeline(app.id, sha, 'good');
    const bridge = await fixture.jobWhen(upstream.id, 'deploy-lib', (job) => job.status === 'success', 'created its downstream pipeline');
    const downstream = await fixture.downstreamOf(bridge);
    assert.equal(downstream.project_id, lib.id);
    assert.equal(downstream.yaml_errors, null);
    const jobs = await fixture.jobs(downstream.id);
    assert.deepEqual(Object.keys(jobs).sort(), ['deploy-production 1/2', 'deploy-production 2/2']);
    assert.deepEqual(jobs['deploy-production 1/2']?.definition?.script, ['echo $NOTE']);
  });

  it('an invalid input fails the downstream pipeline with GitLab\'s message, and the bridge', async () => {
    const sha = await fixture.commit(app.id, 'bad', { '.gitlab-ci.yml': bridgeConfig('      env: review\n') });
    const upstream = await fixture.pushPipeline(app.id, sha, 'bad');
    const bridge = await fixture.jobWhen(upstream.id, 'deploy-lib', (job) => job.status === 'failed', 'failed');
    const downstream = await fixture.downstreamOf(bridge);
    assert.equal(downstream.status, 'failed');
    assert.equal(downstream.yaml_errors, '`env` input: `review` cannot be used because it is not in the list of allowed options');
  });

  it('a child pipeline takes no trigger:inputs (its include entries give inputs): the upstream configuration is invalid', async () => {
    const config = 'child:\n  trigger:\n    include: ci/child.yml\n    inputs:\n      env: staging\n';
    const sha = await fixture.commit(app.id, 'child', { '.gitlab-ci.yml': config, 'ci/child.yml': LIB_CI });
    const upstream = await fixture.pushPipeline(app.id, sha, 'child');
    assert.equal(upstream.status, 'failed');
    assert.equal(upstream.yaml_errors, 'jobs:child:trigger config contains unknown keys: inputs');
  });
});
