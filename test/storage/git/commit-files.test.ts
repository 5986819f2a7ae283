import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GitCommit, GitRepository } from '../../../src/storage/git/index.ts';
import { ANN, gitFixture, type GitFixture } from './fixture.ts';

describe('commit file changes: the added, modified and removed paths of push data', () => {
  let fixture: GitFixture;
  let repository: GitRepository;
  let root: GitCommit;
  let mixed: GitCommit;
  let merge: GitCommit;
  let wide: GitCommit;

  before(async () => {
    fixture = await gitFixture();
    await fixture.manager.create(1, { initializeWithReadme: true, defaultBranch: 'main', projectName: 'files', author: ANN });
    repository = fixture.manager.open(1);
    root = (await repository.commit('main'))!;
    const content = (text: string) => Buffer.from(`${text}\n`);
    await repository.commitFiles({ branch: 'main', message: 'Two files', author: ANN, actions: [{ action: 'create', file_path: 'keep.txt', content: content('keep') }, { action: 'create', file_path: 'old name.txt', content: content('old') }] });
    mixed = await repository.commitFiles({
      branch: 'main',
      message: 'Every kind',
      author: ANN,
      actions: [
        { action: 'update', file_path: 'keep.txt', content: content('kept') },
        { action: 'delete', file_path: 'README.md' },
        { action: 'move', file_path: 'dir/new name.txt', previous_path: 'old name.txt' },
        { action: 'create', file_path: 'dir/ünïcode.txt', content: content('u') },
      ],
    });
    await repository.commitFiles({ branch: 'side', startRef: 'main', message: 'Side', author: ANN, actions: [{ action: 'create', file_path: 'side.txt', content: content('side') }] });
    await repository.commitFiles({ branch: 'main', message: 'Main', author: ANN, actions: [{ action: 'create', file_path: 'main.txt', content: content('main') }] });
    const merged = await repository.merge({
      targetBranch: 'main', targetSha: (await repository.resolveCommit('main'))!, sourceSha: (await repository.resolveCommit('side'))!, method: 'merge', mergeMessage: 'Merge side', squash: null, committer: ANN,
    });
    assert.equal(merged.kind, 'merged');
    merge = (await repository.commit('main'))!;
    wide = await repository.commitFiles({
      branch: 'main',
      message: 'Many',
      author: ANN,
      actions: Array.from({ length: 30 }, (_unused, index) => ({ action: 'create' as const, file_path: `many/${String(index).padStart(2, '0')}.txt`, content: content(String(index)) })),
    });
  });
  after(() => fixture.cleanup());

  it('lists a root commit against the empty tree, and a rename as a removal and an addition', async () => {
    const changes = await repository.commitFileChanges([root, mixed], 1_000);
    assert.deepEqual(changes.get(root.id), { added: ['README.md'], modified: [], removed: [] });
    assert.deepEqual(changes.get(mixed.id), { added: ['dir/new name.txt', 'dir/ünïcode.txt'], modified: ['keep.txt'], removed: ['README.md', 'old name.txt'] });
  });

  it('compares a merge commit with its first parent only', async () => {
    assert.equal(merge.parent_ids.length, 2, 'a merge commit');
    assert.deepEqual((await repository.commitFileChanges([merge], 1_000)).get(merge.id), { added: ['side.txt'], modified: [], removed: [] });
  });

  it('stops at the cap per commit, and gives empty lists for a commit that does not exist', async () => {
    const missing = { id: 'f'.repeat(40), parent_ids: [] };
    const changes = await repository.commitFileChanges([wide, missing], 10);
    assert.deepEqual(changes.get(wide.id)?.added, Array.from({ length: 10 }, (_unused, index) => `many/${String(index).padStart(2, '0')}.txt`));
    assert.deepEqual(changes.get(missing.id), { added: [], modified: [], removed: [] });
    const afterMissing = await repository.commitFileChanges([missing, root, mixed], 1_000);
    assert.deepEqual(afterMissing.get(root.id), { added: ['README.md'], modified: [], removed: [] }, 'the commits beside a missing one are still listed');
    assert.deepEqual(afterMissing.get(mixed.id)?.removed, ['README.md', 'old name.txt']);
  });

  it('lists an empty commit with empty lists and keeps the order of the commits given', async () => {
    const empty = await repository.commitFiles({ branch: 'main', message: 'Nothing', author: ANN, actions: [] });
    const commits = [mixed, empty, root];
    const changes = await repository.commitFileChanges(commits, 1_000);
    assert.deepEqual([...changes.keys()], commits.map((commit) => commit.id));
    assert.deepEqual(changes.get(empty.id), { added: [], modified: [], removed: [] });
    assert.deepEqual(changes.get(root.id)?.added, ['README.md']);
  });
});
