import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
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
});
