/**
 * What `runner exec` reads of the user's clone. The project's default branch
 * (`CI_DEFAULT_BRANCH`): origin's when the clone knows it; else the branch GitLab would have
 * made the default one at the first push (git's `init.defaultBranch`, `main`, `master`), not
 * the branch checked out. The tags the local coordinator gets.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { readHead } from '../../src/exec/git.ts';
import { git, workingTree } from '../cli/exec-helpers.ts';

describe("what runner exec reads of the user's clone", () => {
  const trees: string[] = [];
  const tree = (): string => {
    const dir = workingTree({ 'a.txt': 'a\n' });
    trees.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of trees) rmSync(dir, { recursive: true, force: true });
  });

  it('is main on a feature branch of a clone without a remote, not the feature branch', async () => {
    const dir = tree();
    git(dir, 'checkout', '-q', '-b', 'feature/login');
    const head = await readHead(dir);
    assert.equal(head.branch, 'feature/login');
    assert.equal(head.defaultBranch, 'main');
  });

  it('is master when the clone has master and no main; the current branch when it has neither', async () => {
    const dir = tree();
    git(dir, 'branch', '-m', 'main', 'master');
    git(dir, 'checkout', '-q', '-b', 'topic');
    assert.equal((await readHead(dir)).defaultBranch, 'master');
    git(dir, 'branch', '-m', 'master', 'develop');
    assert.equal((await readHead(dir)).defaultBranch, 'topic');
  });

  it("prefers git's init.defaultBranch when the clone has that branch", async () => {
    const dir = tree();
    git(dir, 'branch', 'trunk');
    git(dir, 'checkout', '-q', '-b', 'topic');
    git(dir, 'config', 'init.defaultBranch', 'trunk');
    assert.equal((await readHead(dir)).defaultBranch, 'trunk');
    git(dir, 'config', 'init.defaultBranch', 'gone');
    assert.equal((await readHead(dir)).defaultBranch, 'main');
  });

  it("is origin's default branch when the clone knows it", async () => {
    const upstream = tree();
    git(upstream, 'branch', '-m', 'main', 'stable');
    const dir = tree();
    git(dir, 'remote', 'add', 'origin', upstream);
    git(dir, 'fetch', '-q', 'origin');
    git(dir, 'remote', 'set-head', 'origin', 'stable');
    assert.equal((await readHead(dir)).defaultBranch, 'stable');
  });

  it('reads the tags, the 2,000 newest of more', async () => {
    const dir = tree();
    const old = git(dir, 'rev-parse', 'HEAD').trim();
    const lines = Array.from({ length: 2_000 }, (_, index) => `create refs/tags/old-${index} ${old}\n`).join('');
    execFileSync('git', ['update-ref', '--stdin'], { cwd: dir, input: lines });
    git(dir, 'tag', '-a', '-m', 'newest', 'newest');
    assert.equal((await readHead(dir)).tags.length, 2_000);
    // Newer than the others by its tagger's date.
    const later = { ...process.env, GIT_COMMITTER_DATE: '@4000000000 +0000' };
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'tag', '-f', '-a', '-m', 'newest', 'newest'], { cwd: dir, env: later });
    git(dir, 'tag', 'one-more');
    const tags = (await readHead(dir)).tags;
    assert.equal(tags.length, 2_000);
    assert.ok(tags.some((tag) => tag.name === 'newest' && tag.object === git(dir, 'rev-parse', 'refs/tags/newest').trim()));
  });
});
