/** `--shell-on-failure`: a shell in the failed job's build directory, with its variables, before cleanup. */
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { LABEL_MANAGED, LABEL_OWNER, ownerId } from '../../src/executors/docker/labels.ts';
import { DEBIAN, dockerReady, skipDocker } from '../executors/docker-support.ts';
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
    const script = 'echo "pwd=$(pwd)"; cat left-behind.txt tracked.txt "$CONFIG"; echo; echo "var=$FROM_CI job=$CI_JOB_NAME status=$CI_JOB_STATUS"; echo "config=$CONFIG"; exit 0\n';
    const result = await exec(dir, { shellOnFailure: true }, { shellTerminal: { input: script, output: (text) => void (shellOutput += text) } });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^runner exec: job "broken" failed \(script_failure\)\. Opening .+ in its build directory (\/\S+) with its variables; exit the shell to go on\.$/m);
    const buildDir = /in its build directory (\S+) with/.exec(result.stderr)?.[1] ?? '';
    assert.match(shellOutput, new RegExp(`^pwd=${buildDir}$`, 'm'));
    assert.match(shellOutput, /^made by the job\nfrom the tree\nthe file text$/m);
    assert.match(shellOutput, /^var=ci-value job=broken status=/m);
    assert.doesNotMatch(result.stderr, /job "fine" failed/);
    assert.match(result.stdout, /^broken +test +failed/m);
    // The slot's directory stays for the next job to recycle; the job's file variables go.
    assert.ok(buildDir.startsWith(path.join(dir, '.git', 'gantry', 'builds') + path.sep), buildDir);
    const config = /^config=(\S+)$/m.exec(shellOutput)?.[1] ?? '';
    assert.notEqual(config, '');
    assert.ok(!existsSync(config), 'the file variable is removed once the shell exits');
  });

});

describe('runner exec --shell-on-failure with the docker executor', { skip: skipDocker }, () => {
  const dir = workingTree({
    '.gitlab-ci.yml': `
variables:
  FROM_CI: ci-value
broken:
  image: ${DEBIAN}
  script:
    - echo "made by the job" > left-behind.txt
    - echo "outside the build volume" > /var/tmp/job-was-here
    - exit 4
`,
    'tracked.txt': 'from the tree\n',
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('runs a shell in the failed job\'s container, in its project directory with its variables, and removes the container after it exits', async () => {
    writeFiles(dir, { '.gantry/variables.yml': 'CONFIG:\n  value: the file text\n  file: true\n' });
    const docker = await dockerReady();
    let shellOutput = '';
    let containersDuringShell: string[] = [];
    const script = 'echo "pwd=$(pwd)"; cat left-behind.txt tracked.txt /var/tmp/job-was-here "$CONFIG"; echo; echo "var=$FROM_CI job=$CI_JOB_NAME"; exit 0\n';
    const output = (text: string): void => {
      shellOutput += text;
      // While the shell runs: the job's containers, as the engine lists them.
      if (containersDuringShell.length === 0) {
        void docker.listContainers({ all: true, filters: JSON.stringify({ label: [`${LABEL_MANAGED}=true`, `${LABEL_OWNER}=${ownerId()}`] }) })
          .then((found) => (containersDuringShell = found.map((info) => info.Id)));
      }
    };
    const result = await exec(dir, { shellOnFailure: true, executor: 'docker' }, { shellTerminal: { input: script, output } });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^runner exec: job "broken" failed \(script_failure\)\. Opening a shell in its container \(gantry\/debian-git:bookworm\) in \/builds\/\S+ with its variables; exit the shell to go on\.$/m);
    const projectDir = /in its container \(\S+\) in (\S+) with/.exec(result.stderr)?.[1] ?? '';
    assert.match(shellOutput, new RegExp(`^pwd=${projectDir}$`, 'm'));
    assert.match(shellOutput, /^made by the job\nfrom the tree\noutside the build volume\nthe file text$/m);
    assert.match(shellOutput, /^var=ci-value job=broken$/m);
    assert.match(result.stdout, /^broken +test +failed/m);
    assert.ok(containersDuringShell.length > 0, 'the job had containers while the shell ran');
    const left = await docker.listContainers({ all: true, filters: JSON.stringify({ id: containersDuringShell }) });
    assert.deepEqual(left, [], 'the job\'s containers are removed once the run is over');
  });
});
