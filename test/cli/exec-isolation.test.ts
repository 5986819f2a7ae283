/**
 * `runner exec` gives every job a clean build directory: what a job leaves is not the next job's.
 * Shell jobs of one slot share a directory kept under `.git/gantry/builds/`, brought back to a
 * new clone's state before each job without writing the files that did not change.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { skipDocker } from '../executors/docker-support.ts';
import { exec, git, workingTree, writeFiles } from './exec-helpers.ts';

// Both jobs run in one slot (--concurrency 1), the second after the first.
const PIPELINE = `
stages: [first, second]
leave:
  stage: first
  script:
    - echo "left by $CI_JOB_NAME" > "$CI_BUILDS_DIR/left-behind.txt"
    - git config gantry.left yes
    - echo "untracked" > untracked.txt && mkdir -p out && echo built > out/app.bin
    - echo "changed" > changed.txt && rm removed.txt
    - echo "dir=$CI_PROJECT_DIR ino=$(stat -c %i kept.txt)"
look:
  stage: second
  script:
    - if [ -e "$CI_BUILDS_DIR/left-behind.txt" ]; then echo "sees left-behind.txt"; else echo "no left-behind.txt"; fi
    - if git config gantry.left; then echo "sees the config"; else echo "no config"; fi
    - ls -A | tr '\\n' ' ' && echo
    - echo "changed.txt=$(cat changed.txt) removed.txt=$(cat removed.txt)"
    - git status --porcelain --ignored | wc -l
    - echo "dir=$CI_PROJECT_DIR ino=$(stat -c %i kept.txt)"
    - git count-objects -v | grep -E '^(count|in-pack):'
`;
const FILES = { '.gitlab-ci.yml': PIPELINE, 'kept.txt': 'kept\n', 'changed.txt': 'committed\n', 'removed.txt': 'committed\n' };

async function runTwice(executor: 'shell' | 'docker'): Promise<void> {
  const dir = workingTree(FILES);
  try {
    const before = git(dir, 'status', '--porcelain', '--ignored');
    const result = await exec(dir, { executor, concurrency: 1, dockerImage: 'gantry/debian-git:bookworm' });
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /^look +\| no left-behind\.txt$/m);
    assert.match(result.stdout, /^look +\| no config$/m);
    assert.match(result.stdout, /^look +\| \.git \.gitlab-ci\.yml changed\.txt kept\.txt removed\.txt $/m);
    assert.match(result.stdout, /^look +\| changed\.txt=committed removed\.txt=committed$/m);
    assert.match(result.stdout, /^look +\| 0$/m, 'git sees the checkout as it was committed, nothing more');
    if (executor === 'shell') {
      const seen = [...result.stdout.matchAll(/^\w+ +\| dir=(\S+) ino=(\d+)$/gm)].map((match) => ({ dir: match[1], ino: match[2] }));
      assert.equal(seen.length, 2, result.stdout);
      assert.equal(seen[0]!.dir, path.join(dir, '.git', 'gantry', 'builds', '0', '0', 'root', path.basename(dir)));
      assert.deepEqual(seen[1], seen[0], 'the slot\'s directory, its unchanged files not written again');
      // The clone borrows the working tree's objects: its fetch transferred none.
      assert.match(result.stdout, /^look +\| count: 0\nlook +\| in-pack: 0$/m);
      // Kept for the next run, and no run holds it now.
      assert.deepEqual(readdirSync(path.join(dir, '.git', 'gantry', 'builds')), ['0']);
      const again = await exec(dir, { executor, concurrency: 1 });
      assert.equal(again.code, 0, `${again.stdout}\n${again.stderr}`);
      assert.match(again.stdout, new RegExp(`^leave +\\| dir=\\S+ ino=${seen[0]!.ino}$`, 'm'));
    }
    // The working tree gets .gantry/ and nothing else.
    assert.equal(git(dir, 'status', '--porcelain', '--ignored'), `${before}!! .gantry/\n`);
    assert.deepEqual(readdirSync(dir).sort(), ['.gantry', '.git', '.gitlab-ci.yml', 'changed.txt', 'kept.txt', 'removed.txt']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('runner exec runs every job in a clean build directory', () => {
  it('with the shell executor', async () => {
    await runTwice('shell');
  });

  it('with the docker executor', { skip: skipDocker }, async () => {
    await runTwice('docker');
  });

  it('keeps a docker job\'s clone on this machine from run to run, written by git alone: the next run fetches and checks out only what changed', { skip: skipDocker }, async () => {
    const dir = workingTree({
      '.gitlab-ci.yml': 'show:\n  script:\n    - cat kept.txt\n    - echo made-in-the-container > made.txt\n',
      'kept.txt': 'committed\n',
    });
    try {
      const options = { executor: 'docker' as const, concurrency: 1, dockerImage: 'gantry/debian-git:bookworm' };
      const first = await exec(dir, options);
      assert.equal(first.code, 0, `${first.stdout}\n${first.stderr}`);
      assert.match(readFileSync(path.join(dir, '.gantry', 'logs', 'show.log'), 'utf8'), /Created fresh repository\./);
      const clone = path.join(dir, '.git', 'gantry', 'builds', '0', 'docker', '0', 'root', path.basename(dir));
      assert.equal(readFileSync(path.join(clone, 'kept.txt'), 'utf8'), 'committed\n');
      // An uncommitted change reaches the next run's job through the kept clone.
      writeFiles(dir, { 'kept.txt': 'changed in the working tree\n' });
      const second = await exec(dir, options);
      assert.equal(second.code, 0, `${second.stdout}\n${second.stderr}`);
      assert.match(second.stdout, /^show +\| changed in the working tree$/m);
      const log = readFileSync(path.join(dir, '.gantry', 'logs', 'show.log'), 'utf8');
      assert.match(log, /Reinitialized existing Git repository/);
      assert.equal(readFileSync(path.join(clone, 'kept.txt'), 'utf8'), 'changed in the working tree\n');
      // What the job wrote stayed in its container.
      assert.equal(existsSync(path.join(clone, 'made.txt')), false);
      assert.equal(git(clone, 'status', '--porcelain', '--ignored'), '');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('where a shell job without a clone gets an empty directory and finds no repository, not yours around it', async () => {
    // After a job that cloned in the same slot: its directory is emptied, not recycled.
    const pipeline = [
      'stages: [first, second]',
      'clone:\n  stage: first\n  script: echo cloned',
      'no-clone:\n  stage: second\n  variables:\n    GIT_STRATEGY: none\n  script:\n    - echo "entries=$(ls -A | wc -l)"\n    - if git rev-parse --absolute-git-dir; then echo "found a repository"; else echo "no repository"; fi',
    ].join('\n');
    const dir = workingTree({ '.gitlab-ci.yml': `${pipeline}\n`, 'kept.txt': 'kept\n' });
    try {
      const result = await exec(dir, { concurrency: 1 });
      assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
      assert.match(result.stdout, /^no-clone +\| entries=0$/m);
      assert.match(result.stdout, /^no-clone +\| no repository$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
