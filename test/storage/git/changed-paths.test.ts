import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GitRepository } from '../../../src/storage/git/index.ts';
import { ANN, git, gitFixture, importCommits, type GitFixture } from './fixture.ts';

describe('changed paths (rules:changes)', () => {
  let fixture: GitFixture;
  let repository: GitRepository;
  let base: string;

  before(async () => {
    fixture = await gitFixture();
    await fixture.manager.create(1, { initializeWithReadme: false, defaultBranch: 'main', projectName: 'changes', author: ANN });
    repository = fixture.manager.open(1);
    const many = Object.fromEntries(Array.from({ length: 300 }, (_, index) => [`many/file-${String(index).padStart(3, '0')}.txt`, `${index}\n`]));
    await importCommits(repository.path, 'main', [
      { message: 'base', time: 1_700_000_000, files: { 'a.txt': 'one\n', 'old name.txt': 'moved\n' } },
      { message: 'main moves on', time: 1_700_000_100, files: { 'main-only.txt': 'main\n' } },
    ]);
    base = (await git(repository.path, ['rev-parse', 'main~1'])).trim();
    // feature, from base: a change, a rename (both names count), and 300 new files.
    const lines = [`commit refs/heads/feature`, `committer ${ANN.name} <${ANN.email}> 1700000200 +0000`, 'data 7', 'feature', `from ${base}`];
    lines.push('M 100644 inline a.txt', 'data 4', 'two', 'D old name.txt', 'M 100644 inline new name.txt', 'data 6', 'moved');
    for (const [file, content] of Object.entries(many)) lines.push(`M 100644 inline ${file}`, `data ${content.length}`, content);
    await git(repository.path, ['fast-import', '--quiet', '--force'], `${lines.join('\n')}\n`);
    await importCommits(repository.path, 'orphan', [{ message: 'unrelated', time: 1_700_000_400, files: { 'z.txt': 'zed\n' } }]);
  });
  after(() => fixture.cleanup());

  it('reads every path, or no more than the limit asked for', async () => {
    const all = await repository.changedPaths(base, 'feature');
    assert.equal(all?.length, 303);
    assert.deepEqual(all?.filter((path) => !path.startsWith('many/')).sort(), ['a.txt', 'new name.txt', 'old name.txt']);
    const capped = await repository.changedPaths(base, 'feature', 10);
    assert.deepEqual(capped, all?.slice(0, 10));
    assert.equal(await repository.changedPaths('no-such-ref', 'feature'), null);
  });

  it('diffs from the merge base with the named commit, not from that commit', async () => {
    const feature = (await git(repository.path, ['rev-parse', 'feature'])).trim();
    const since = await repository.changedPathsSince('main', feature, feature, 1_000);
    assert.equal(since?.includes('main-only.txt'), false, "main's own later change is not the feature's");
    assert.equal(since?.length, 303);
    assert.deepEqual(await repository.changedPathsSince('main', 'main', 'main', 1_000), []);
    // Unrelated histories have no merge base: nothing changed since, as GitLab's empty diff stats.
    assert.deepEqual(await repository.changedPathsSince('orphan', feature, feature, 1_000), []);
    assert.equal(await repository.changedPathsSince('nope', feature, feature, 1_000), null);
    // The history a commit stands for may be another commit's (runner exec's parentless snapshot).
    const orphan = (await git(repository.path, ['rev-parse', 'orphan'])).trim();
    assert.deepEqual(await repository.changedPathsSince(base, 'main', orphan, 1_000), ['a.txt', 'old name.txt', 'z.txt']);
  });
});
