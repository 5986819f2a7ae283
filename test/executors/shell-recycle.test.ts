/** A slot's build directory brought back to a new one's state for the next job (recycle.ts), with real git. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { recycleBuildDirectory } from '../../src/executors/shell/recycle.ts';

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' });

let buildsDir: string;
let projectDir: string;

/** A checkout as a job left it: a tracked file changed, untracked and ignored files, settings and a hook of its own, files beside the clone. */
function leftByAJob(): void {
  mkdirSync(projectDir, { recursive: true });
  git(projectDir, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(projectDir, 'tracked.txt'), 'committed\n');
  writeFileSync(path.join(projectDir, '.gitignore'), 'out/\n');
  git(projectDir, 'add', '-A');
  git(projectDir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'one');
  writeFileSync(path.join(projectDir, 'tracked.txt'), 'changed by the job\n');
  writeFileSync(path.join(projectDir, 'untracked.txt'), 'new\n');
  mkdirSync(path.join(projectDir, 'out'));
  writeFileSync(path.join(projectDir, 'out', 'ignored.bin'), 'built\n');
  git(projectDir, 'config', 'gantry.left', 'yes');
  writeFileSync(path.join(projectDir, '.git', 'hooks', 'post-checkout'), '#!/bin/sh\nexit 1\n');
  writeFileSync(path.join(buildsDir, 'left-behind.txt'), 'beside\n');
  mkdirSync(path.join(buildsDir, 'root', 'other'), { recursive: true });
  writeFileSync(path.join(buildsDir, 'root', 'other', 'file'), 'another project\n');
}

describe('recycleBuildDirectory', () => {
  beforeEach(() => {
    buildsDir = mkdtempSync(path.join(tmpdir(), 'gantry-recycle-'));
    projectDir = path.join(buildsDir, 'root', 'repo');
  });
  afterEach(() => rmSync(buildsDir, { recursive: true, force: true }));

  it('keeps the tracked files and the index, and nothing else', async () => {
    leftByAJob();
    const before = statSync(path.join(projectDir, '.gitignore'));
    assert.equal(await recycleBuildDirectory(buildsDir, projectDir, true), true);
    assert.deepEqual(readdirSync(buildsDir), ['root']);
    assert.deepEqual(readdirSync(path.join(buildsDir, 'root')), ['repo']);
    assert.deepEqual(readdirSync(projectDir).sort(), ['.git', '.gitignore', 'tracked.txt']);
    assert.deepEqual(readdirSync(path.join(projectDir, '.git')), ['index']);
    // Kept as it is: the checkout that follows writes what differs (tracked.txt), not the rest.
    const after = statSync(path.join(projectDir, '.gitignore'));
    assert.equal(after.ino, before.ino);
    assert.equal(after.mtimeMs, before.mtimeMs);
  });

  it('gives a job that does not fetch and check out an empty directory', async () => {
    leftByAJob();
    assert.equal(await recycleBuildDirectory(buildsDir, projectDir, false), false);
    assert.deepEqual(readdirSync(buildsDir), []);
  });

  it('empties the directory when the index trusts a file the job may have changed', async () => {
    leftByAJob();
    git(projectDir, 'update-index', '--assume-unchanged', 'tracked.txt');
    assert.equal(await recycleBuildDirectory(buildsDir, projectDir, true), false);
    assert.deepEqual(readdirSync(buildsDir), []);
  });

  it('empties the directory when there is no repository to clean', async () => {
    mkdirSync(projectDir, { recursive: true });
    writeFileSync(path.join(projectDir, 'stray.txt'), 'x\n');
    assert.equal(await recycleBuildDirectory(buildsDir, projectDir, true), false);
    assert.deepEqual(readdirSync(buildsDir), []);
  });

  it('does not let the job\'s settings (core.worktree) point the clean at another directory', async () => {
    leftByAJob();
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'gantry-recycle-elsewhere-'));
    try {
      writeFileSync(path.join(elsewhere, 'precious.txt'), 'mine\n');
      git(projectDir, 'config', 'core.worktree', elsewhere);
      assert.equal(await recycleBuildDirectory(buildsDir, projectDir, true), true);
      assert.equal(readFileSync(path.join(elsewhere, 'precious.txt'), 'utf8'), 'mine\n');
      assert.ok(!existsSync(path.join(projectDir, 'untracked.txt')));
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('removes a repository a job made inside the clone and a directory where the index lists a file', async () => {
    leftByAJob();
    git(path.join(projectDir, 'out'), 'init', '-q');
    rmSync(path.join(projectDir, 'tracked.txt'));
    mkdirSync(path.join(projectDir, 'tracked.txt'));
    writeFileSync(path.join(projectDir, 'tracked.txt', 'inside'), 'x\n');
    assert.equal(await recycleBuildDirectory(buildsDir, projectDir, true), true);
    assert.deepEqual(readdirSync(projectDir).sort(), ['.git', '.gitignore']);
  });

  it('removes what a job left under a name that is not UTF-8 beside the clone and in .git, by the name it has', async () => {
    leftByAJob();
    const notUtf8 = Buffer.from([0xff, 0x41]);
    writeFileSync(Buffer.concat([Buffer.from(`${buildsDir}/`), notUtf8]), 'beside\n');
    mkdirSync(Buffer.concat([Buffer.from(`${projectDir}/.git/`), notUtf8]));
    writeFileSync(Buffer.concat([Buffer.from(`${projectDir}/.git/`), notUtf8, Buffer.from('/inside')]), 'x\n');
    assert.equal(await recycleBuildDirectory(buildsDir, projectDir, true), true);
    assert.deepEqual(readdirSync(buildsDir), ['root']);
    assert.deepEqual(readdirSync(path.join(projectDir, '.git')), ['index']);
  });

  it('empties the directory when a name is not UTF-8', async () => {
    leftByAJob();
    writeFileSync(Buffer.concat([Buffer.from(`${projectDir}/`), Buffer.from([0xff, 0x41])]), 'x\n');
    assert.equal(await recycleBuildDirectory(buildsDir, projectDir, true), false);
    assert.deepEqual(readdirSync(buildsDir), []);
  });

  it('does not keep a project directory outside the builds directory', async () => {
    leftByAJob();
    assert.equal(await recycleBuildDirectory(path.join(buildsDir, 'root', 'other'), projectDir, true), false);
    assert.ok(existsSync(path.join(projectDir, 'tracked.txt')), 'what lies outside the builds directory is not touched');
  });
});
