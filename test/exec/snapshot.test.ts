/**
 * The snapshot `runner exec` runs: the working tree as it is, read through a copy of the
 * user's index. The copy keeps the index's time, which is what git's racy-clean check compares
 * a file's time with: a file changed in the same second as its `git add`, at the same size, is
 * hashed again rather than taken from the index's stat cache.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { commitTree, readHead, snapshotCommit } from '../../src/exec/git.ts';
import { git, workingTree } from '../cli/exec-helpers.ts';

const hashOf = (dir: string, text: string): string => execFileSync('git', ['hash-object', '--stdin'], { cwd: dir, input: text, encoding: 'utf8' }).trim();

/** Stages v2 of `file` and writes v3 over it within the same second of the clock, as the index's own write. */
function stageThenChangeWithinOneSecond(dir: string, file: string): void {
  for (;;) {
    writeFileSync(path.join(dir, file), 'v2\n');
    git(dir, 'add', file);
    writeFileSync(path.join(dir, file), 'v3\n');
    const seconds = (name: string): number => Math.floor(statSync(path.join(dir, name)).mtimeMs / 1000);
    if (seconds(file) === seconds('.git/index')) return;
  }
}

describe('the working-tree snapshot of runner exec', () => {
  const dir = workingTree({ 'f.txt': 'v1\n' });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('holds a file changed at the same size in the second it was staged, read in a later second', async () => {
    stageThenChangeWithinOneSecond(dir, 'f.txt');
    await sleep(1_100);
    const snapshot = await snapshotCommit(dir, await readHead(dir), false);
    const tree = await commitTree(dir, snapshot.sha);
    const listed = execFileSync('git', ['ls-tree', tree, 'f.txt'], { cwd: dir, encoding: 'utf8' });
    assert.match(listed, new RegExp(`blob ${hashOf(dir, 'v3\n')}\tf.txt`), listed);
  });
});
