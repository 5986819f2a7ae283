import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';

const BIN = path.resolve(import.meta.dirname, '../../bin/runner');

function runner(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(BIN, args, { cwd }, (error, stdout, stderr) => {
      const code = error && typeof error.code === 'number' ? error.code : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('runner lint (the installed command)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gantry-lint-cli-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    path.join(dir, '.gitlab-ci.yml'),
    ['build:', '  script: make', 'release:', '  stage: deploy', '  script: ship', '  rules:', '    - if: $CI_COMMIT_TAG', ''].join('\n'),
  );
  writeFileSync(path.join(dir, 'broken.yml'), 'job:\n  script: x\n  when: sometimes\n');

  it('lists the jobs of the working tree file and evaluates rules for --tag', async () => {
    const onBranch = await runner(['lint', '--json'], dir);
    assert.equal(onBranch.code, 0, onBranch.stderr);
    const whenOf = (stdout: string): Record<string, string> =>
      Object.fromEntries((JSON.parse(stdout) as { jobs: Array<{ name: string; when: string }> }).jobs.map((job) => [job.name, job.when]));
    assert.deepEqual(whenOf(onBranch.stdout), { build: 'on_success', release: 'never' });

    const onTag = await runner(['lint', '--tag', 'v1.0', '--json'], dir);
    assert.deepEqual(whenOf(onTag.stdout), { build: 'on_success', release: 'on_success' });
  });

  it('prints diagnostics with file and line and exits 1', async () => {
    const result = await runner(['lint', 'broken.yml'], dir);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /broken\.yml:3: error: jobs:job when /);
  });

  it('takes one value per --variable: a file named after one is the file to lint', async () => {
    const result = await runner(['lint', '--variable', 'RELEASE=1', 'broken.yml'], dir);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /broken\.yml:3: error: jobs:job when /);
  });

  it('evaluates rules with the variables of --env-file files, --variable over them', async () => {
    writeFileSync(path.join(dir, 'release.env'), 'CI_COMMIT_TAG=v2.0\n');
    const fromFile = await runner(['lint', '--env-file', 'release.env', '--json'], dir);
    assert.equal(fromFile.code, 0, fromFile.stderr);
    const jobs = (stdout: string) => (JSON.parse(stdout) as { jobs: Array<{ name: string; when: string }> }).jobs;
    assert.equal(jobs(fromFile.stdout).find((job) => job.name === 'release')?.when, 'on_success');
    const overridden = await runner(['lint', '--env-file', 'release.env', '--variable', 'CI_COMMIT_TAG=', '--json'], dir);
    assert.equal(jobs(overridden.stdout).find((job) => job.name === 'release')?.when, 'never');
    const missing = await runner(['lint', '--env-file', 'nowhere.env'], dir);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'runner lint: --env-file nowhere.env: no such file\n');
  });

  it('gives the spec:inputs of the file the --input values, each read as its declared type', async () => {
    writeFileSync(
      path.join(dir, 'inputs.yml'),
      ['spec:', '  inputs:', '    replicas:', '      type: number', '    version:', '---', 'deploy-$[[ inputs.replicas ]]:', '  script: echo $[[ inputs.version ]]', ''].join('\n'),
    );
    const given = await runner(['lint', 'inputs.yml', '--input', 'replicas=3', '--input', 'version=1.10', '--json'], dir);
    assert.equal(given.code, 0, given.stdout);
    assert.deepEqual((JSON.parse(given.stdout) as { jobs: Array<{ name: string }> }).jobs.map((job) => job.name), ['deploy-3']);
    const wrongType = await runner(['lint', 'inputs.yml', '--input', 'replicas=three', '--input', 'version=1'], dir);
    assert.equal(wrongType.code, 1);
    assert.match(wrongType.stdout, /inputs\.yml:1: error: `replicas` input: provided value is not a number/);
  });

  it('exits 1 with a clear message for a missing file', async () => {
    const result = await runner(['lint', 'missing.yml'], dir);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /cannot read .*missing\.yml/);
  });
});
