/** `runner exec` gives every job a fresh build directory: what a job leaves is not the next job's, and it is gone after the run. */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import { skipDocker } from '../executors/docker-support.ts';
import { exec, git, workingTree } from './exec-helpers.ts';

// Both jobs run in one slot (--concurrency 1), the second after the first. Untracked files in
// the clone are `git clean`'s anyway: these two outlive a clean in a shared build directory.
const PIPELINE = `
stages: [first, second]
leave:
  stage: first
  script:
    - echo "left by $CI_JOB_NAME" > "$CI_BUILDS_DIR/left-behind.txt"
    - git config gantry.left yes
    - echo "dir=$CI_PROJECT_DIR"
look:
  stage: second
  script:
    - if [ -e "$CI_BUILDS_DIR/left-behind.txt" ]; then echo "sees left-behind.txt"; else echo "no left-behind.txt"; fi
    - if git config gantry.left; then echo "sees the config"; else echo "no config"; fi
    - echo "dir=$CI_PROJECT_DIR"
    - git count-objects -v | grep -E '^(count|in-pack):'
`;

async function runTwice(executor: 'shell' | 'docker'): Promise<void> {
  const dir = workingTree({ '.gitlab-ci.yml': PIPELINE });
  try {
    const before = git(dir, 'status', '--porcelain', '--ignored');
    const result = await exec(dir, { executor, concurrency: 1, dockerImage: 'gantry/debian-git:bookworm' });
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /^look +\| no left-behind\.txt$/m);
    assert.match(result.stdout, /^look +\| no config$/m);
    if (executor === 'shell') {
      const directories = [...result.stdout.matchAll(/^\w+ +\| dir=(\S+)$/gm)].map((match) => match[1]);
      assert.equal(directories.length, 2, result.stdout);
      assert.notEqual(directories[0], directories[1], 'each job has its own directory');
      for (const directory of directories) assert.ok(!existsSync(directory), `${directory} is removed after its job`);
      // The clone borrows the working tree's objects: its fetch transferred none.
      assert.match(result.stdout, /^look +\| count: 0\nlook +\| in-pack: 0$/m);
    }
    // The working tree gets .gantry/ and nothing else.
    assert.equal(git(dir, 'status', '--porcelain', '--ignored'), `${before}!! .gantry/\n`);
    assert.deepEqual(readdirSync(dir).sort(), ['.gantry', '.git', '.gitlab-ci.yml']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('runner exec runs every job in a fresh build directory', () => {
  it('with the shell executor', async () => {
    await runTwice('shell');
  });

  it('with the docker executor', { skip: skipDocker }, async () => {
    await runTwice('docker');
  });
});
