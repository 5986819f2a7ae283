/** readIndexListing against git's own indexes (versions 2, 3 and 4) and its `ls-files`. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readIndexListing } from '../../src/executors/shell/git-index.ts';

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' });
let dir: string;
const index = (): Buffer => readFileSync(path.join(dir, '.git', 'index'));

describe('readIndexListing', () => {
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'gantry-index-'));
    git(dir, 'init', '-q');
    const long = 'n'.repeat(200);
    for (const [name, text] of Object.entries({ 'a.txt': 'a', 'src/app/main.ts': 'm', 'src/app/util.ts': 'u', 'src/lib.ts': 'l', 'docs/ü ñ.md': 'x', [`deep/${long}/${long}.txt`]: 'long', 'run.sh': 'echo' })) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), text);
    }
    execFileSync('chmod', ['+x', path.join(dir, 'run.sh')]);
    symlinkSync('a.txt', path.join(dir, 'link'));
    git(dir, 'add', '-A');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  // Git writes version 3 only for an entry with extended flags, all of which are refused (below).
  for (const version of ['2', '4']) {
    it(`lists what git ls-files lists, and the directories above, in version ${version}`, () => {
      git(dir, 'update-index', '--index-version', version);
      assert.equal(index().readUInt32BE(4), Number(version));
      const listing = readIndexListing(index());
      assert.ok(listing);
      const expected = git(dir, '-c', 'core.quotePath=false', 'ls-files', '-z').split('\0').filter(Boolean);
      assert.deepEqual([...listing.files].sort(), expected.sort());
      const long = 'n'.repeat(200);
      assert.deepEqual([...listing.directories].sort(), ['deep', `deep/${long}`, 'docs', 'src', 'src/app'].sort());
    });
  }

  for (const [what, mark, undo] of [
    ['assume-unchanged', ['update-index', '--assume-unchanged', 'a.txt'], ['update-index', '--no-assume-unchanged', 'a.txt']],
    ['skip-worktree', ['update-index', '--skip-worktree', 'a.txt'], ['update-index', '--no-skip-worktree', 'a.txt']],
    ['intent-to-add', ['add', '-N', 'later.txt'], ['rm', '-q', '--cached', 'later.txt']],
    ['a submodule', ['update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},sub`], ['update-index', '--force-remove', 'sub']],
  ] as const) {
    it(`refuses an index with ${what} entries`, () => {
      writeFileSync(path.join(dir, 'later.txt'), 'later');
      git(dir, 'update-index', '--index-version', '3');
      git(dir, ...mark);
      try {
        if (what === 'skip-worktree' || what === 'intent-to-add') assert.equal(index().readUInt32BE(4), 3);
        assert.equal(readIndexListing(index()), null);
      } finally {
        git(dir, ...undo);
        rmSync(path.join(dir, 'later.txt'));
      }
      assert.ok(readIndexListing(index()), 'the same index without them is read');
    });
  }

  it('refuses a damaged index', () => {
    const damaged = Buffer.from(index());
    damaged[20] = (damaged[20]! + 1) & 0xff;
    assert.equal(readIndexListing(damaged), null);
    assert.equal(readIndexListing(Buffer.from('not an index')), null);
  });
});
