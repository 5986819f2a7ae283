/** `runner exec --list`, `--preview`, `--payload`, and the ref, source and file choices. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { exec, statuses, workingTree, type JsonResult } from './exec-helpers.ts';

const MAIN = `
include:
  - local: ci/templates.yml
build:
  stage: build
  extends: .base
  script: echo "build for $CI_COMMIT_REF_NAME"
release:
  stage: deploy
  needs: [build]
  script: echo "release $CI_COMMIT_TAG"
  rules:
    - if: $CI_COMMIT_TAG
nightly:
  stage: test
  script: echo "nightly from $CI_PIPELINE_SOURCE"
  rules:
    - if: $CI_PIPELINE_SOURCE == "schedule"
`;

const TEMPLATES = `
.base:
  image: alpine
  variables:
    FROM_TEMPLATE: "yes"
`;

// Each of these goes only to a runner that says it has the feature: --payload asks as the run's executor.
const REPORTS = `
report:
  script: echo
  allow_failure: { exit_codes: [3] }
  artifacts:
    paths: [out/]
    exclude: [out/*.tmp]
    reports: { dotenv: build.env }
`;

describe('runner exec inspects the pipeline without running it', () => {
  const dir = workingTree({ '.gitlab-ci.yml': MAIN, 'ci/templates.yml': TEMPLATES, 'other.yml': 'solo:\n  script: echo "solo on $CI_COMMIT_REF_NAME"\n', 'reports.yml': REPORTS });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('--list shows each job with its rules outcome for the ref, the tag and the source', async () => {
    const onBranch = await exec(dir, { list: true, json: true });
    assert.equal(onBranch.code, 0, onBranch.stderr);
    const whenOf = (stdout: string) => Object.fromEntries((JSON.parse(stdout) as { jobs: Array<{ name: string; when: string }> }).jobs.map((job) => [job.name, job.when]));
    assert.deepEqual(whenOf(onBranch.stdout), { build: 'on_success', nightly: 'never', release: 'never' });

    const onTag = await exec(dir, { list: true, json: true, tag: 'v1.2' });
    assert.deepEqual(whenOf(onTag.stdout), { build: 'on_success', nightly: 'never', release: 'on_success' });

    const scheduled = await exec(dir, { list: true, source: 'schedule' });
    assert.match(scheduled.stdout, /^nightly +test +on_success/m);
    assert.match(scheduled.stdout, /^release +deploy +never +no +build +rules: no match$/m);
  });

  it('--preview prints the merged configuration: includes and extends resolved', async () => {
    const result = await exec(dir, { preview: true });
    assert.equal(result.code, 0, result.stderr);
    const merged = parse(result.stdout) as Record<string, { image?: string; variables?: Record<string, string>; extends?: unknown }>;
    assert.equal(merged.build?.image, 'alpine');
    assert.equal(merged.build?.variables?.FROM_TEMPLATE, 'yes');
    assert.equal(merged.include, undefined);
  });

  it('--preview writes anchored values out in each job that uses them, without YAML aliases', async () => {
    const anchors = workingTree({
      '.gitlab-ci.yml': `
.job_template: &job_configuration
  script: [test project]
  tags: [dev]
test:postgres:
  <<: *job_configuration
  tags: [postgres]
test:mysql:
  <<: *job_configuration
`,
    });
    try {
      const result = await exec(anchors, { preview: true });
      assert.equal(result.code, 0, result.stderr);
      assert.doesNotMatch(result.stdout, /[&*]a\d/);
      assert.match(result.stdout, /^test:mysql:\n {2}script:\n {4}- test project\n {2}tags:\n {4}- dev$/m);
    } finally {
      rmSync(anchors, { recursive: true, force: true });
    }
  });

  it('--preview resolves the defaults into each job, as its inherit:default takes them', async () => {
    const defaults = workingTree({
      '.gitlab-ci.yml': `
variables: { GLOBAL: one }
after_script: [echo after]
default:
  image: alpine
  before_script: [echo before]
  retry: 1
  interruptible: true
plain:
  script: echo plain
  image:
none:
  inherit: { default: false }
  script: echo none
some:
  inherit: { default: [image, retry] }
  retry: 2
  script: echo some
child:
  trigger: { include: child.yml }
.template:
  script: echo hidden
`,
      'child.yml': 'inner:\n  script: echo inner\n',
    });
    try {
      const result = await exec(defaults, { preview: true, json: true });
      assert.equal(result.code, 0, result.stderr);
      const merged = JSON.parse(result.stdout) as Record<string, Record<string, unknown>>;
      assert.deepEqual(merged.plain, { script: 'echo plain', image: 'alpine', before_script: ['echo before'], after_script: ['echo after'], retry: 1, interruptible: true });
      assert.deepEqual(merged.none, { inherit: { default: false }, script: 'echo none' });
      assert.deepEqual(merged.some, { inherit: { default: ['image', 'retry'] }, retry: 2, script: 'echo some', image: 'alpine' });
      assert.deepEqual(merged.child, { trigger: { include: 'child.yml' }, interruptible: true });
      assert.deepEqual(merged['.template'], { script: 'echo hidden' });
      assert.deepEqual([merged.default, merged.after_script, merged.variables], [undefined, undefined, { GLOBAL: 'one' }]);
    } finally {
      rmSync(defaults, { recursive: true, force: true });
    }
  });

  it('--payload prints what a runner receives for the job', async () => {
    const result = await exec(dir, { payload: 'release', tag: 'v1.2', variable: ['EXTRA=1'] });
    assert.equal(result.code, 0, result.stderr);
    const payload = JSON.parse(result.stdout) as {
      job_info: { name: string; stage: string };
      git_info: { ref: string; ref_type: string };
      steps: Array<{ name: string; script: string[] }>;
      variables: Array<{ key: string; value: string }>;
    };
    assert.equal(payload.job_info.name, 'release');
    assert.deepEqual([payload.git_info.ref, payload.git_info.ref_type], ['v1.2', 'tag']);
    assert.deepEqual(payload.steps.find((step) => step.name === 'script')?.script, ['echo "release $CI_COMMIT_TAG"']);
    const variable = (key: string) => payload.variables.find((each) => each.key === key)?.value;
    assert.equal(variable('EXTRA'), '1');
    assert.equal(variable('CI_COMMIT_TAG'), 'v1.2');
    assert.equal(variable('CI_PIPELINE_SOURCE'), 'push');
  });

  it('--payload prints a job with reports, artifacts:exclude and allow_failure:exit_codes', async () => {
    const result = await exec(dir, { payload: 'report', file: 'reports.yml' });
    assert.equal(result.code, 0, result.stderr);
    const payload = JSON.parse(result.stdout) as { artifacts: Array<{ artifact_type: string; paths: string[]; exclude?: string[] }> };
    assert.deepEqual(payload.artifacts.map((artifact) => [artifact.artifact_type, artifact.paths, artifact.exclude ?? []]), [
      ['archive', ['out/'], ['out/*.tmp']],
      ['dotenv', ['build.env'], []],
    ]);
  });

  it('runs a pipeline for --source and --ref, and from --file', async () => {
    const scheduled = await exec(dir, { stage: 'test', source: 'schedule', json: true });
    assert.equal(scheduled.code, 0, scheduled.stderr);
    assert.deepEqual(statuses(JSON.parse(scheduled.stdout) as JsonResult), { nightly: 'success' });
    assert.match(scheduled.stderr, /^nightly +\| nightly from schedule$/m);

    const other = await exec(dir, { file: 'other.yml', ref: 'feature/x' });
    assert.equal(other.code, 0, other.stderr);
    assert.match(other.stdout, /^solo +\| solo on feature\/x$/m);
  });
});
