import assert from 'node:assert/strict';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { runLint, type LintArgs } from '../../src/cli/commands/lint.ts';

async function repo(files: Record<string, string>): Promise<string> {
  const directory = await mkdtemp(path.join(tmpdir(), 'gantry-lint-'));
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(directory, name)), { recursive: true });
    await writeFile(path.join(directory, name), content);
  }
  return directory;
}

async function lint(cwd: string, args: LintArgs = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runLint(args, { stdout: (s) => (out += s), stderr: (s) => (err += s), cwd });
  return { code, out, err };
}

const CI = `include: ci/deploy.yml
stages: [build, test, deploy]
build:
  stage: build
  script: make
test:
  script: make test
  needs: [build]
  rules:
    - if: $CI_COMMIT_TAG
      when: never
    - if: $RUN_TESTS == "yes"
    - when: manual
`;
const DEPLOY = `deploy:
  stage: deploy
  script: deploy
  only: [tags]
`;

describe('runner lint', () => {
  test('prints stages and jobs with the rules outcome', async () => {
    const cwd = await repo({ '.gitlab-ci.yml': CI, 'ci/deploy.yml': DEPLOY });
    const { code, out } = await lint(cwd);
    assert.equal(code, 0);
    assert.match(out, /Status: syntax is correct/);
    assert.match(out, /Stages: \.pre, build, test, deploy, \.post/);
    assert.match(out, /^test\s+test\s+manual\s+no\s+build\s+rules: #3$/m);
    assert.match(out, /^deploy\s+deploy\s+never\s+no\s+-\s+only\/except$/m);
  });

  test('--variable and --tag change the outcome; --json is machine readable', async () => {
    const cwd = await repo({ '.gitlab-ci.yml': CI, 'ci/deploy.yml': DEPLOY });
    const withVariable = JSON.parse((await lint(cwd, { json: true, variable: ['RUN_TESTS=yes'] })).out) as {
      jobs: { name: string; when: string; decidedBy: string; included: boolean }[];
    };
    assert.deepEqual(withVariable.jobs.find((job) => job.name === 'test'), {
      name: 'test', stage: 'test', when: 'on_success', allowFailure: false, needs: ['build'], included: true, decidedBy: 'rules: #2',
    });
    const onTag = JSON.parse((await lint(cwd, { json: true, tag: 'v1.0' })).out) as { jobs: { name: string; included: boolean }[] };
    assert.deepEqual(onTag.jobs.map((job) => [job.name, job.included]), [['build', true], ['test', false], ['deploy', true]]);
  });

  test('errors are printed with file and line, exit status 1', async () => {
    const cwd = await repo({ 'ci.yml': 'ok:\n  script: x\nbad:\n  script: x\n  when: later\n' });
    const { code, out } = await lint(cwd, { file: 'ci.yml' });
    assert.equal(code, 1);
    assert.match(out, /Status: syntax is incorrect/);
    assert.match(out, /^ci\.yml:5: error: jobs:bad when should be one of: on_success, on_failure, always, manual, delayed$/m);
    const json = JSON.parse((await lint(cwd, { file: 'ci.yml', json: true })).out) as { valid: boolean; errors: { line: number }[] };
    assert.equal(json.valid, false);
    assert.equal(json.errors[0]?.line, 5);
  });

  test('a missing file is reported on stderr', async () => {
    const cwd = await repo({});
    const { code, err } = await lint(cwd);
    assert.equal(code, 1);
    assert.match(err, /cannot read/);
  });

  test('bridges show their trigger instead of a script, in text and JSON', async () => {
    const cwd = await repo({
      '.gitlab-ci.yml': 'build:\n  script: make\ndeploy:\n  stage: deploy\n  trigger: { project: group/deployments, branch: stable, strategy: depend }\n' +
        'child:\n  trigger:\n    include: ci/child.yml\n',
    });
    const { code, out } = await lint(cwd);
    assert.equal(code, 0);
    assert.match(out, /^NAME\s+STAGE\s+WHEN\s+ALLOW FAILURE\s+NEEDS\s+DECIDED BY\s+TRIGGER$/m);
    assert.match(out, /^build\s+test\s+on_success\s+no\s+-\s+default\s+-$/m);
    assert.match(out, /^deploy\s+deploy\s+on_success\s+no\s+-\s+default\s+trigger: group\/deployments@stable \(depend\)$/m);
    assert.match(out, /^child\s+test\s+on_success\s+no\s+-\s+default\s+trigger: child: ci\/child\.yml$/m);
    const json = JSON.parse((await lint(cwd, { json: true })).out) as { jobs: Record<string, unknown>[] };
    assert.equal('trigger' in (json.jobs.find((job) => job.name === 'build') ?? {}), false);
    assert.deepEqual(json.jobs.find((job) => job.name === 'deploy')?.trigger, {
      kind: 'project', project: 'group/deployments', branch: 'stable', strategy: 'depend',
      forward: { yamlVariables: true, pipelineVariables: false },
    });
  });

  test('allow_failure exit_codes show as the codes, in text and JSON', async () => {
    const cwd = await repo({ '.gitlab-ci.yml': 'coded:\n  script: make\n  allow_failure:\n    exit_codes: [3, 137]\nplain:\n  script: make\n' });
    const { code, out } = await lint(cwd);
    assert.equal(code, 0);
    assert.match(out, /^coded\s+test\s+on_success\s+exit codes 3, 137\s+-\s+default$/m);
    assert.match(out, /^plain\s+test\s+on_success\s+no\s+-\s+default$/m);
    const json = JSON.parse((await lint(cwd, { json: true })).out) as { jobs: Record<string, unknown>[] };
    assert.deepEqual(json.jobs.find((job) => job.name === 'coded')?.allowFailureExitCodes, [3, 137]);
    assert.equal(json.jobs.find((job) => job.name === 'coded')?.allowFailure, false);
    assert.equal('allowFailureExitCodes' in (json.jobs.find((job) => job.name === 'plain') ?? {}), false);
  });

  test('without bridges the table has no TRIGGER column', async () => {
    const cwd = await repo({ '.gitlab-ci.yml': CI, 'ci/deploy.yml': DEPLOY });
    const { out } = await lint(cwd);
    assert.doesNotMatch(out, /TRIGGER/);
  });
});
