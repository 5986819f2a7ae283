import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GitFileAction, GitRepository } from '../../../src/storage/git/index.ts';
import { ANN, git, gitFixture, type GitFixture } from './fixture.ts';

describe('merge request refs: fork fetch, head ref, file counts', () => {
  let fixture: GitFixture;
  let target: GitRepository;
  let fork: GitRepository;
  let forkTip = '';
  let base = '';

  before(async () => {
    fixture = await gitFixture();
    await fixture.manager.create(1, { initializeWithReadme: true, defaultBranch: 'main', projectName: 'target', author: ANN });
    target = fixture.manager.open(1);
    base = (await target.resolveCommit('main'))!;
    await fixture.manager.fork(1, 2);
    fork = fixture.manager.open(2);
    const files: GitFileAction[] = Array.from({ length: 12 }, (_unused, index) => ({ action: 'create' as const, file_path: `f${index}.txt`, content: Buffer.from(`${index}\n`) }));
    forkTip = (await fork.commitFiles({ branch: 'feature', startRef: 'main', message: 'Twelve files', author: ANN, actions: files })).id;
  });
  after(() => fixture.cleanup());

  it('copies a fork commit into the target (no ref written), and answers true at once when it is there', async () => {
    assert.equal(await target.resolveCommit(forkTip), null);
    assert.equal(await target.fetchCommitFrom(fork.path, forkTip), true);
    assert.equal(await target.resolveCommit(forkTip), forkTip);
    assert.equal((await git(target.path, ['for-each-ref', '--format=%(refname)'])).trim(), 'refs/heads/main', 'no ref was written');
    assert.equal(await target.fetchCommitFrom(fork.path, forkTip), true);
  });

  it('answers false for a commit the source does not have, and for something that is no object id', async () => {
    assert.equal(await target.fetchCommitFrom(fork.path, 'f'.repeat(40)), false);
    assert.equal(await target.fetchCommitFrom(fork.path, '--upload-pack=touch /tmp/x'), false);
  });

  it('writes refs/merge-requests/<iid>/head and moves it; refuses a bad iid', async () => {
    await target.setMergeRequestHead(3, forkTip);
    assert.equal(await target.resolveCommit('refs/merge-requests/3/head'), forkTip);
    await target.setMergeRequestHead(3, base);
    assert.equal(await target.resolveCommit('refs/merge-requests/3/head'), base);
    await assert.rejects(target.setMergeRequestHead(0, base));
  });

  it('counts changed files no further than cap + 1, and the diff stream lists the same count', async () => {
    assert.equal(await target.countChangedFiles(base, forkTip, 100), 12);
    assert.equal(await target.countChangedFiles(base, forkTip, 5), 6);
    const diff = await target.diffBetween(base, forkTip, { expanded: false });
    assert.equal(diff.fileCount, 12);
    let files = 0;
    for await (const file of diff) files += file.new_file ? 1 : 0;
    assert.equal(files, 12);
  });
});
