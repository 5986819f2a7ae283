/** Bridges from parent to child: the child's CI file is built from the bridge and compiled when the child is created. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  childPipelineConfig,
  compilePipeline,
  describeTrigger,
  isBridge,
  type ArtifactFileResult,
  type BridgeJobDefinition,
  type CompileContext,
} from '../../src/ci/index.ts';

const PARENT = `stages: [generate, trigger]
generate:
  stage: generate
  script: ./generate.sh
  artifacts: { paths: [generated.yml] }
child:
  stage: trigger
  needs: [generate]
  trigger:
    include:
      - local: ci/child.yml
      - artifact: generated.yml
        job: generate
    strategy: depend
`;

function context(files: Record<string, string>, overrides: Partial<CompileContext> = {}): CompileContext {
  return {
    project: { id: 7, path: 'group/app', defaultBranch: 'main' },
    ref: 'main',
    refType: 'branch',
    sha: '1234567890abcdef1234567890abcdef12345678',
    source: 'push',
    files: { readFile: async (path) => files[path] ?? null },
    ...overrides,
  };
}

async function parentBridge(files: Record<string, string>): Promise<BridgeJobDefinition> {
  const parent = await compilePipeline(PARENT, context(files));
  assert.equal(parent.status, 'created', JSON.stringify(parent.errors));
  const bridge = parent.jobs.find((job) => job.name === 'child');
  assert.ok(bridge && isBridge(bridge));
  return bridge;
}

function childContext(files: Record<string, string>, artifacts: Record<string, Record<string, string>>): CompileContext {
  return context(files, {
    source: 'parent_pipeline',
    files: {
      readFile: async (path) => files[path] ?? null,
      readArtifactFile: async (job, path): Promise<ArtifactFileResult> => {
        const content = artifacts[job]?.[path];
        if (!artifacts[job]) return { status: 'job-not-found' };
        return content === undefined ? { status: 'file-not-found' } : { status: 'found', content };
      },
    },
  });
}

describe('child pipelines', () => {
  test('the parent compiles without reading the child files; the child compiles them later', async () => {
    const bridge = await parentBridge({});
    assert.equal(bridge.trigger.kind, 'child');
    if (bridge.trigger.kind !== 'child') return;
    const text = childPipelineConfig(bridge.trigger);

    const files = { 'ci/child.yml': 'unit:\n  script: make unit\n  only: [parent_pipelines]\n' };
    const artifacts = { generate: { 'generated.yml': 'lint:\n  script: make lint\n' } };
    const child = await compilePipeline(text, childContext(files, artifacts));
    assert.equal(child.status, 'created', JSON.stringify(child.errors));
    assert.deepEqual(
      child.jobs.map((job) => [job.name, job.script]),
      [['unit', ['make unit']], ['lint', ['make lint']]],
    );
  });

  test('a missing local file fails the child, not the parent (as in GitLab)', async () => {
    const bridge = await parentBridge({});
    if (bridge.trigger.kind !== 'child') assert.fail('not a child trigger');
    const child = await compilePipeline(childPipelineConfig(bridge.trigger), childContext({}, { generate: {} }));
    assert.equal(child.status, 'invalid');
    assert.deepEqual(child.errors.map((error) => error.message), ['Local file `ci/child.yml` does not exist!']);
  });

  test('an artifact file missing from the parent job is reported with GitLab’s message', async () => {
    const bridge = await parentBridge({});
    if (bridge.trigger.kind !== 'child') assert.fail('not a child trigger');
    const files = { 'ci/child.yml': 'unit:\n  script: make unit\n' };
    const child = await compilePipeline(childPipelineConfig(bridge.trigger), childContext(files, { generate: {} }));
    assert.deepEqual(child.errors.map((error) => error.message), [
      'Path `generated.yml` does not exist inside the `generate` artifacts archive!',
    ]);
  });

  test("a child's included files take the bridge's inputs for their spec:inputs", async () => {
    const parent = await compilePipeline(
      'child:\n  trigger:\n    include:\n      - local: ci/child.yml\n        inputs:\n          env: staging\n          count: 2\n',
      context({}),
    );
    const bridge = parent.jobs.find((job) => job.name === 'child');
    assert.ok(bridge && isBridge(bridge) && bridge.trigger.kind === 'child');
    const files = { 'ci/child.yml': 'spec:\n  inputs:\n    env:\n    count:\n      type: number\n---\ndeploy-$[[ inputs.env ]]:\n  script: echo $[[ inputs.count ]]\n' };
    const child = await compilePipeline(childPipelineConfig(bridge.trigger), childContext(files, {}));
    assert.equal(child.status, 'created', JSON.stringify(child.errors));
    assert.deepEqual(child.jobs.map((job) => [job.name, job.script]), [['deploy-staging', ['echo 2']]]);
  });

  test('trigger:inputs of a multi-project bridge are kept as written (no expansion, the upstream inputs interpolated)', async () => {
    const text = [
      'spec:\n  inputs:\n    tier:\n      default: gold\n---',
      'deploy:\n  trigger:\n    project: group/other\n    inputs:\n      env: $CI_COMMIT_REF_NAME\n      count: 2\n      regions: [eu, us]\n      tier: $[[ inputs.tier ]]',
      'plain:\n  trigger: group/other',
    ].join('\n');
    const result = await compilePipeline(`${text}\n`, context({}));
    assert.equal(result.status, 'created', JSON.stringify(result.errors));
    const [deploy, plain] = result.jobs;
    assert.ok(deploy && isBridge(deploy) && deploy.trigger.kind === 'project' && plain && isBridge(plain) && plain.trigger.kind === 'project');
    assert.deepEqual(deploy.trigger.inputs, { env: '$CI_COMMIT_REF_NAME', count: 2, regions: ['eu', 'us'], tier: 'gold' });
    assert.equal('inputs' in plain.trigger, false);
  });

  test('trigger:inputs must be a hash, and a child pipeline takes inputs only in its include entries', async () => {
    const notHash = await compilePipeline('deploy:\n  trigger:\n    project: group/other\n    inputs: [a]\n', context({}));
    assert.deepEqual(notHash.errors.map((error) => error.message), ['jobs:deploy:trigger inputs should be a hash']);
    const child = await compilePipeline('child:\n  trigger:\n    include: ci/child.yml\n    inputs: { env: staging }\n', context({}));
    assert.deepEqual(child.errors.map((error) => error.message), ['jobs:child:trigger config contains unknown keys: inputs']);
  });

  test('childPipelineConfig keeps project includes with and without ref', () => {
    const text = childPipelineConfig({
      kind: 'child',
      include: [
        { kind: 'project', project: 'group/lib', file: 'a.yml', ref: null },
        { kind: 'project', project: 'group/lib', file: 'b.yml', ref: 'v1' },
      ],
      strategy: null,
      forward: { yamlVariables: true, pipelineVariables: false },
    });
    assert.deepEqual(JSON.parse(text), {
      include: [
        { project: 'group/lib', file: 'a.yml' },
        { project: 'group/lib', file: 'b.yml', ref: 'v1' },
      ],
    });
  });

  test('describeTrigger gives one line per kind of trigger', async () => {
    const bridge = await parentBridge({});
    assert.equal(describeTrigger(bridge.trigger), 'child: ci/child.yml, generated.yml (artifact of generate) (depend)');
    const forward = { yamlVariables: true, pipelineVariables: false };
    assert.equal(describeTrigger({ kind: 'project', project: 'g/p', branch: null, strategy: null, forward }), 'g/p');
    assert.equal(describeTrigger({ kind: 'project', project: 'g/p', branch: 'stable', strategy: 'depend', forward }), 'g/p@stable (depend)');
  });
});
