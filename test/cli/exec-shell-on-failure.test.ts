/** `--shell-on-failure`: a shell in the failed job's build directory, with its variables, before cleanup. */
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { exec, workingTree, writeFiles } from './exec-helpers.ts';

const PIPELINE = `
variables:
  FROM_CI: ci-value
broken:
  script:
    - echo "made by the job" > left-behind.txt
    - exit 4
fine:
  script: echo fine
`;

describe('runner exec --shell-on-failure', () => {
  const dir = workingTree({ '.gitlab-ci.yml': PIPELINE, 'tracked.txt': 'from the tree\n' });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('opens a shell in the failed job\'s build directory with its variables, and cleans up after it exits', async () => {
    writeFiles(dir, { '.gantry/variables.yml': 'CONFIG:\n  value: the file text\n  file: true\n' });
    let shellOutput = '';
    const script = 'echo "pwd=$(pwd)"; cat left-behind.txt tracked.txt "$CONFIG"; echo; echo "var=$FROM_CI job=$CI_JOB_NAME status=$CI_JOB_STATUS"; exit 0\n';
    const result = await exec(dir, { shellOnFailure: true }, { shellTerminal: { input: script, output: (text) => void (shellOutput += text) } });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^runner exec: job "broken" failed \(script_failure\)\. Opening .+ in its build directory (\/\S+) with its variables; exit the shell to go on\.$/m);
    const buildDir = /in its build directory (\S+) with/.exec(result.stderr)?.[1] ?? '';
    assert.match(shellOutput, new RegExp(`^pwd=${buildDir}$`, 'm'));
    assert.match(shellOutput, /^made by the job\nfrom the tree\nthe file text$/m);
    assert.match(shellOutput, /^var=ci-value job=broken status=/m);
    assert.doesNotMatch(result.stderr, /job "fine" failed/);
    assert.match(result.stdout, /^broken +test +failed/m);
    assert.ok(!existsSync(buildDir), 'the build directory is gone once the run is over');
  });

  it('refuses the docker executor for now', async () => {
    const result = await exec(dir, { shellOnFailure: true, executor: 'docker' });
    assert.equal(result.code, 2);
    assert.equal(result.stderr, 'runner exec: --shell-on-failure works with --executor shell only (not yet docker)\n');
  });
});
