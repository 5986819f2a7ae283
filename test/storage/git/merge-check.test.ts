import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GitRepository } from '../../../src/storage/git/index.ts';
import { ANN, git, gitFixture, importCommits, type GitFixture } from './fixture.ts';

describe('merge-tree check', () => {
  let fixture: GitFixture;
  let repository: GitRepository;

  before(async () => {
    fixture = await gitFixture();
    await fixture.manager.create(1, { initializeWithReadme: false, defaultBranch: 'main', projectName: 'merge', author: ANN });
    repository = fixture.manager.open(1);
    await importCommits(repository.path, 'main', [{ message: 'base', time: 1_700_000_000, files: { 'a.txt': 'one\n', 'b.txt': 'bee\n' } }]);
    const base = (await git(repository.path, ['rev-parse', 'main'])).trim();
    await commitOn('main', base, 'main edits a', { 'a.txt': 'main\n' });
    await commitOn('clean', base, 'adds c', { 'c.txt': 'sea\n' });
    await commitOn('clash', base, 'clash edits a', { 'a.txt': 'clash\n' });
    await importCommits(repository.path, 'orphan', [{ message: 'unrelated', time: 1_700_000_400, files: { 'z.txt': 'zed\n' } }]);
  });
  after(() => fixture.cleanup());

  /** One commit on `branch` whose parent is `parent`, written by fast-import. */
  async function commitOn(branch: string, parent: string, message: string, files: Record<string, string>): Promise<void> {
    const lines = [`commit refs/heads/${branch}`, `committer ${ANN.name} <${ANN.email}> 1700000100 +0000`, `data ${message.length}`, message, `from ${parent}`];
    for (const [file, content] of Object.entries(files)) lines.push(`M 100644 inline ${file}`, `data ${Buffer.byteLength(content)}`, content);
    await git(repository.path, ['fast-import', '--quiet', '--force'], `${lines.join('\n')}\n`);
  }

  it('answers the merged tree of a clean merge, the one git merge would write', async () => {
    const result = await repository.mergeTree('main', 'clean');
    assert.equal(result.clean, true);
    if (!result.clean) return;
    const listing = await git(repository.path, ['ls-tree', '--name-only', result.tree]);
    assert.deepEqual(listing.split('\n'), ['a.txt', 'b.txt', 'c.txt']);
    assert.equal(await git(repository.path, ['cat-file', 'blob', `${result.tree}:a.txt`]), 'main', "main's side of a.txt is kept");
    assert.equal((await git(repository.path, ['rev-parse', 'main'])).length, 40, 'no ref moved');
  });

  it('names the conflicted paths, and refuses unrelated histories', async () => {
    assert.deepEqual(await repository.mergeTree('main', 'clash'), { clean: false, conflictedPaths: ['a.txt'], reason: 'conflicts' });
    assert.deepEqual(await repository.mergeTree('main', 'orphan'), { clean: false, conflictedPaths: [], reason: 'unrelated-histories' });
  });
});
