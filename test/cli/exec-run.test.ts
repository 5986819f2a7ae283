/** `runner exec` running real pipelines of real working trees on the shell executor. */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { exec, git, statuses, workingTree, writeFiles, type JsonResult } from './exec-helpers.ts';

const PIPELINE = `
stages: [build, test, deploy]
variables:
  GREETING: from-yaml
build:
  stage: build
  script:
    - mkdir -p out
    - cat input.txt > out/input-copy.txt
    - cat untracked.txt > out/untracked-copy.txt
  artifacts:
    paths: [out/]
check:
  stage: test
  needs: [build]
  script:
    - echo "seen:$(cat out/input-copy.txt):$(cat out/untracked-copy.txt)"
    - echo "vars:$GREETING:$FROM_CLI:$CI_PIPELINE_SOURCE:$CI_COMMIT_REF_NAME"
flaky:
  stage: test
  allow_failure: true
  script: exit 3
deploy:
  stage: deploy
  script: echo deployed
  when: manual
`;

describe('runner exec runs the pipeline of the working tree', () => {
  const dir = workingTree({ '.gitlab-ci.yml': PIPELINE, 'input.txt': 'committed\n', '.gitignore': 'ignored.txt\n' });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('sees uncommitted and untracked files, passes artifacts through needs, and leaves the index and refs alone', async () => {
    writeFiles(dir, { 'input.txt': 'edited\n', 'untracked.txt': 'brand new\n', 'ignored.txt': 'ignored\n' });
    git(dir, 'add', 'input.txt');
    const statusBefore = git(dir, 'status', '--porcelain');
    const refsBefore = git(dir, 'for-each-ref');

    const result = await exec(dir, { variable: ['FROM_CLI=given'], json: true });
    assert.equal(result.code, 0, result.stderr);
    const outcome = JSON.parse(result.stdout) as JsonResult;
    assert.equal(outcome.status, 'success');
    // The manual job is not asked for: it waits, and does not fail the pipeline.
    assert.deepEqual(statuses(outcome), { build: 'success', check: 'success', flaky: 'failed', deploy: 'manual' });
    assert.match(result.stderr, /^check +\| seen:edited:brand new$/m);
    assert.match(result.stderr, /^check +\| vars:from-yaml:given:push:main$/m);

    assert.equal(readFileSync(path.join(dir, '.gantry/artifacts/build/out/input-copy.txt'), 'utf8'), 'edited\n');
    assert.equal(git(dir, 'status', '--porcelain'), statusBefore);
    assert.equal(git(dir, 'for-each-ref'), refsBefore);
  });

  it('runs named jobs with what they need, plays a manual job (and says when --manual names one that is not), and honours --committed', async () => {
    writeFileSync(path.join(dir, 'untracked.txt'), 'still here\n');
    const result = await exec(dir, { jobs: ['check'], needs: true, json: true, committed: false });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(statuses(JSON.parse(result.stdout) as JsonResult), { build: 'success', check: 'success' });

    // --manual on a job that is not manual says so, and changes nothing.
    const manual = await exec(dir, { jobs: ['deploy'], manual: ['flaky'] });
    assert.equal(manual.code, 0, manual.stderr);
    assert.equal(manual.stderr, 'runner exec: --manual flaky: the job is not manual (when: on_success); it runs as its rules say\n');
    assert.match(manual.stdout, /^deploy +\| deployed$/m);
    assert.match(manual.stdout, /^deploy +deploy +success/m);

    // HEAD alone has no untracked.txt: the build fails on it.
    const committed = await exec(dir, { jobs: ['build'], committed: true });
    assert.equal(committed.code, 1);
    assert.match(committed.stdout, /^build +build +failed +[\d.]+ s +script_failure$/m);
    assert.match(committed.stdout, /^pipeline failed$/m);
  });
});

describe('runner exec reports failures', () => {
  const dir = workingTree({
    '.gitlab-ci.yml': 'first:\n  script: echo one\nbroken:\n  script:\n    - echo about to fail\n    - exit 7\nlater:\n  stage: deploy\n  script: echo never\n',
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 1 when a job fails, and the later stage is skipped', async () => {
    const result = await exec(dir, {});
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /^broken +\| about to fail$/m);
    assert.match(result.stdout, /^broken +test +failed .*script_failure$/m);
    assert.match(result.stdout, /^later +deploy +skipped/m);
    assert.match(result.stdout, /^pipeline failed$/m);
  });

  it('names the pipeline by its workflow:name in the summary and the JSON result', async () => {
    const named = workingTree({ '.gitlab-ci.yml': 'workflow:\n  name: Checks of $CI_COMMIT_REF_NAME\nfirst:\n  script: echo one\n' });
    try {
      const result = await exec(named, {});
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^pipeline "Checks of main" success$/m);
      const json = await exec(named, { json: true });
      assert.equal((JSON.parse(json.stdout) as { pipelineName: string | null }).pipelineName, 'Checks of main');
    } finally {
      rmSync(named, { recursive: true, force: true });
    }
  });

  it('names the valid jobs for an unknown one, and reports a configuration error with its line', async () => {
    const unknown = await exec(dir, { jobs: ['nope'] });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /unknown job "nope"; the pipeline's jobs: first, broken, later/);

    writeFileSync(path.join(dir, '.gitlab-ci.yml'), 'job:\n  script: x\n  when: sometimes\n');
    const invalid = await exec(dir, {});
    assert.equal(invalid.code, 1);
    assert.match(invalid.stderr, /the CI configuration is invalid:\n\.gitlab-ci\.yml:3: error: jobs:job when /);
  });
});
