import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { LoopTurns } from '../../src/shared/loop-turns.ts';
import { removeTree } from '../../src/shared/remove-tree.ts';
import { runUnprivileged } from '../helpers/unprivileged.ts';

describe('removeTree', () => {
  it('removes a tree whose directories a job made read-only, for a user other than root too', () => {
    const open = mkdtempSync(path.join(tmpdir(), 'gantry-remove-tree-'));
    try {
      chmodSync(open, 0o777);
      const module = path.resolve(import.meta.dirname, `../../src/shared/remove-tree${path.extname(import.meta.filename)}`);
      const tree = path.join(open, 'build');
      // The user makes the tree, as a job would, then locks it (`chmod -R a-w`), and removes it.
      const run = runUnprivileged(module, [
        `const { chmodSync, mkdirSync, writeFileSync } = await import('node:fs');`,
        `mkdirSync(${JSON.stringify(path.join(tree, 'ro/sub'))}, { recursive: true });`,
        `writeFileSync(${JSON.stringify(path.join(tree, 'ro/sub/file.txt'))}, 'x');`,
        `for (const dir of ['ro/sub', 'ro', '']) chmodSync(${JSON.stringify(tree)} + '/' + dir, 0o555);`,
        `await m.removeTree(${JSON.stringify(tree)});`,
        `await m.removeTree(${JSON.stringify(path.join(open, 'never-there'))});`,
      ].join('\n'));
      assert.equal(run.status, 0, run.stderr);
      assert.equal(existsSync(tree), false);
    } finally {
      rmSync(open, { recursive: true, force: true });
    }
  });

  it('removes an ordinary tree', async () => {
    const open = mkdtempSync(path.join(tmpdir(), 'gantry-remove-tree-'));
    mkdirSync(path.join(open, 'a/b'), { recursive: true });
    writeFileSync(path.join(open, 'a/b/c'), 'x');
    await removeTree(open);
    assert.equal(existsSync(open), false);
  });

  it('removes a large tree, links as links (never what they point at), giving the event loop turns meanwhile', async () => {
    const open = mkdtempSync(path.join(tmpdir(), 'gantry-remove-tree-'));
    const outside = mkdtempSync(path.join(tmpdir(), 'gantry-remove-tree-outside-'));
    try {
      writeFileSync(path.join(outside, 'kept.txt'), 'kept');
      const tree = path.join(open, 'build');
      // More entries in one directory than are read at once, and a few levels.
      mkdirSync(path.join(tree, 'flat'), { recursive: true });
      for (let index = 0; index < 700; index++) writeFileSync(path.join(tree, 'flat', `f${index}`), '');
      mkdirSync(path.join(tree, 'a/b/c'), { recursive: true });
      writeFileSync(path.join(tree, 'a/b/c/deep.txt'), 'x');
      symlinkSync(outside, path.join(tree, 'a/link-to-dir'));
      symlinkSync(path.join(outside, 'kept.txt'), path.join(tree, 'a/b/link-to-file'));
      const order: string[] = [];
      setImmediate(() => order.push('a turn of the event loop'));
      // A budget of 0 ms: a turn at every entry (the default waits 10 ms of work).
      await removeTree(tree, new LoopTurns(0)).then(() => order.push('removed'));
      assert.deepEqual(order, ['a turn of the event loop', 'removed']);
      assert.equal(existsSync(tree), false);
      assert.equal(readFileSync(path.join(outside, 'kept.txt'), 'utf8'), 'kept');
      // A file or a link given as the target goes itself; one not there is no error.
      writeFileSync(path.join(open, 'file'), 'x');
      symlinkSync(outside, path.join(open, 'link'));
      await removeTree(path.join(open, 'file'));
      await removeTree(path.join(open, 'link'));
      await removeTree(path.join(open, 'never-there'));
      assert.equal(existsSync(path.join(open, 'file')), false);
      assert.equal(existsSync(path.join(open, 'link')), false);
      assert.equal(readFileSync(path.join(outside, 'kept.txt'), 'utf8'), 'kept');
    } finally {
      rmSync(open, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('removes entries whose names are not UTF-8, by the names they have', async () => {
    const open = mkdtempSync(path.join(tmpdir(), 'gantry-remove-tree-'));
    const tree = Buffer.concat([Buffer.from(path.join(open, 'build')), Buffer.from('/')]);
    mkdirSync(tree);
    const latin1 = Buffer.concat([tree, Buffer.from([0x63, 0x61, 0x66, 0xe9])]);
    mkdirSync(latin1);
    writeFileSync(Buffer.concat([latin1, Buffer.from([0x2f, 0xff, 0xfe])]), 'x');
    writeFileSync(Buffer.concat([tree, Buffer.from([0x80])]), 'x');
    await removeTree(path.join(open, 'build'));
    assert.equal(existsSync(path.join(open, 'build')), false);
    rmSync(open, { recursive: true, force: true });
  });
});
