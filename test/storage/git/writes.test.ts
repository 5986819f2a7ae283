import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GitRepository } from '../../../src/storage/git/index.ts';
import { PATH_MESSAGES } from '../../../src/storage/git/validate.ts';
import { COMMIT_MESSAGES } from '../../../src/storage/git/write.ts';
import { ANN, BOB, git, gitFixture, type GitFixture } from './fixture.ts';
import { COMMIT_WRITE_ANSWERS } from '../../../src/coordinator/api/repository/params.ts';
import { answeredWith } from '../../helpers/api-answer.ts';

const text = (value: string): Buffer => Buffer.from(value);

async function rejectsWith(promise: Promise<unknown>, message: string): Promise<void> {
  await assert.rejects(promise, answeredWith(400, message, COMMIT_WRITE_ANSWERS));
}

describe('git storage writes', () => {
  let fixture: GitFixture;
  let repository: GitRepository;
  let projectId = 0;

  async function freshRepository(readme = true): Promise<GitRepository> {
    projectId += 1;
    await fixture.manager.create(projectId, { initializeWithReadme: readme, defaultBranch: 'main', projectName: 'Project Ü', author: ANN });
    return fixture.manager.open(projectId);
  }

  before(async () => {
    fixture = await gitFixture();
    repository = await freshRepository();
  });

  after(async () => fixture.cleanup());

  it('initializes with a README by the author on the default branch', async () => {
    const head = await repository.commit('main');
    assert.equal(head?.author.name, ANN.name);
    assert.equal(head?.parent_ids.length, 0);
    const readme = await repository.blobAt('main', 'README.md');
    assert.equal((await repository.readBlob(readme!.id))?.toString(), '# Project Ü\n');
    assert.equal(await git(repository.path, ['config', 'receive.denyNonFastForwards']), 'false');
    assert.equal(await git(repository.path, ['config', 'http.receivepack']), 'true');
    assert.equal(await fixture.manager.exists(projectId), true);
    assert.equal(await fixture.manager.exists(999), false);
  });

  it('makes the first commit of an empty repository and its branch the default', async () => {
    const empty = await freshRepository(false);
    assert.equal(await empty.isEmpty(), true);
    const first = await empty.commitFiles({ branch: 'develop', message: 'First', author: BOB, actions: [{ action: 'create', file_path: 'a.txt', content: text('a\n') }] });
    assert.equal(first.parent_ids.length, 0);
    assert.equal(await empty.isEmpty(), false);
    assert.equal(await empty.defaultBranch(), 'develop');
    await rejectsWith(
      empty.commitFiles({ branch: 'other', message: 'x', author: BOB, actions: [{ action: 'create', file_path: 'b.txt', content: text('b') }] }),
      COMMIT_MESSAGES.notOnBranch,
    );
  });

  it('applies every action kind in one commit', async () => {
    await repository.commitFiles({
      branch: 'main', message: 'Setup', author: ANN,
      actions: [
        { action: 'create', file_path: 'lib/a.txt', content: text('a\n') },
        { action: 'create', file_path: 'lib/b.txt', content: text('b\n') },
        { action: 'create', file_path: 'run.sh', content: text('#!/bin/sh\n'), execute_filemode: true },
      ],
    });
    const commit = await repository.commitFiles({
      branch: 'main', message: 'Every action', author: BOB,
      actions: [
        { action: 'update', file_path: 'lib/a.txt', content: text('a2\n') },
        { action: 'delete', file_path: 'lib/b.txt' },
        { action: 'move', previous_path: 'run.sh', file_path: 'bin/run.sh' },
        { action: 'move', previous_path: 'README.md', file_path: 'docs/README.md', content: text('# moved\n') },
        { action: 'chmod', file_path: 'lib/a.txt', execute_filemode: true },
        { action: 'create', file_path: 'lib/b.txt/inner.txt', content: text('file became a directory\n') },
      ],
    });
    assert.equal(commit.author.name, BOB.name);
    assert.equal(commit.committer.email, BOB.email);
    const listing = await git(repository.path, ['ls-tree', '-r', 'main']);
    assert.match(listing, /^100755 blob \S+\tbin\/run\.sh$/m);
    assert.match(listing, /^100755 blob \S+\tlib\/a\.txt$/m);
    assert.match(listing, /\tlib\/b\.txt\/inner\.txt$/m);
    assert.doesNotMatch(listing, /\trun\.sh$|\tREADME\.md$/m);
    assert.equal(await git(repository.path, ['show', 'main:docs/README.md']), '# moved');
    assert.equal(await git(repository.path, ['show', 'main:lib/a.txt']), 'a2');
  });

  it('answers 400 with GitLab messages for every refused action', async () => {
    const base = { branch: 'main', message: 'Nope', author: ANN };
    const tip = await repository.resolveCommit('main');
    await rejectsWith(repository.commitFiles({ ...base, actions: [{ action: 'create', file_path: 'lib/a.txt', content: text('x') }] }), COMMIT_MESSAGES.fileExists);
    await rejectsWith(repository.commitFiles({ ...base, actions: [{ action: 'create', file_path: 'lib', content: text('x') }] }), COMMIT_MESSAGES.directoryExists);
    await rejectsWith(repository.commitFiles({ ...base, actions: [{ action: 'create', file_path: 'lib/a.txt/deeper', content: text('x') }] }), COMMIT_MESSAGES.fileExists);
    await rejectsWith(repository.commitFiles({ ...base, actions: [{ action: 'update', file_path: 'nope.txt', content: text('x') }] }), COMMIT_MESSAGES.fileMissing);
    await rejectsWith(repository.commitFiles({ ...base, actions: [{ action: 'delete', file_path: 'nope.txt' }] }), COMMIT_MESSAGES.fileMissing);
    await rejectsWith(repository.commitFiles({ ...base, actions: [{ action: 'chmod', file_path: 'nope.txt', execute_filemode: true }] }), COMMIT_MESSAGES.fileMissing);
    await rejectsWith(repository.commitFiles({ ...base, actions: [{ action: 'move', previous_path: 'nope.txt', file_path: 'x.txt' }] }), COMMIT_MESSAGES.fileMissing);
    await rejectsWith(repository.commitFiles({ ...base, actions: [{ action: 'move', previous_path: 'lib/a.txt', file_path: 'bin/run.sh' }] }), COMMIT_MESSAGES.fileExists);
    await rejectsWith(repository.commitFiles({ ...base, actions: [{ action: 'update', file_path: 'lib/a.txt', content: text('a2\n') }] }), COMMIT_MESSAGES.identicalContent);
    const stale = (await repository.log({ offset: 1, limit: 1 }))[0]!.id;
    await rejectsWith(repository.commitFiles({ ...base, actions: [{ action: 'update', file_path: 'lib/a.txt', content: text('a3\n'), last_commit_id: stale }] }), COMMIT_MESSAGES.changedSinceEditing);
    await rejectsWith(repository.commitFiles({ ...base, actions: [{ action: 'delete', file_path: 'lib/a.txt', last_commit_id: 'deadbeef' }] }), COMMIT_MESSAGES.changedSinceEditing);
    await rejectsWith(repository.commitFiles({ ...base, actions: [{ action: 'create', file_path: '../escape', content: text('x') }] }), PATH_MESSAGES.traversal);
    await rejectsWith(repository.commitFiles({ ...base, actions: [{ action: 'create', file_path: 'a/../../b', content: text('x') }] }), PATH_MESSAGES.traversal);
    await rejectsWith(repository.commitFiles({ ...base, actions: [{ action: 'create', file_path: '/etc/passwd', content: text('x') }] }), PATH_MESSAGES.absolute);
    await rejectsWith(repository.commitFiles({ ...base, actions: [{ action: 'create', file_path: 'sub/.git/config', content: text('x') }] }), PATH_MESSAGES.gitDirectory);
    await rejectsWith(repository.commitFiles({ ...base, actions: [{ action: 'create', file_path: 'a\0b', content: text('x') }] }), PATH_MESSAGES.invalid);
    await rejectsWith(repository.commitFiles({ ...base, actions: [{ action: 'move', previous_path: '../x', file_path: 'y' }] }), PATH_MESSAGES.traversal);
    await rejectsWith(repository.commitFiles({ ...base, branch: 'new-one', startRef: 'no-such-start', actions: [{ action: 'create', file_path: 'z', content: text('x') }] }), 'Invalid reference name: no-such-start');
    await rejectsWith(repository.commitFiles({ ...base, branch: '-bad', actions: [{ action: 'create', file_path: 'z', content: text('x') }] }), 'Branch name is invalid');
    assert.equal(await repository.resolveCommit('main'), tip, 'no refused commit moved the branch');
  });

  it('answers history pages from the moving branch tip, not from an earlier page of it', async () => {
    const own = await freshRepository();
    const first = await own.log({ ref: 'main', offset: 0, limit: 5 });
    assert.deepEqual(await own.log({ ref: 'main', offset: 0, limit: 5 }), first, 'the same page twice');
    const added = await own.commitFiles({ branch: 'main', message: 'Later', author: BOB, actions: [{ action: 'create', file_path: 'later.txt', content: text('l\n') }] });
    const after = await own.log({ ref: 'main', offset: 0, limit: 5 });
    assert.deepEqual(after.map((commit) => commit.id), [added.id, ...first.map((commit) => commit.id)]);
    assert.deepEqual((await own.log({ ref: 'main', offset: 1, limit: 5 })).map((commit) => commit.id), first.map((commit) => commit.id));
  });

  it('derives commit counts from the previous count exactly, across pushes, older commits and diverged branches', async () => {
    const own = await freshRepository();
    const commit = (branch: string, file: string, startRef?: string) =>
      own.commitFiles({ branch, startRef, message: file, author: ANN, actions: [{ action: 'create', file_path: file, content: text(`${file}\n`) }] });
    for (const file of ['m1', 'm2', 'm3']) await commit('main', file);
    for (const file of ['f1', 'f2']) await commit('feature', file, 'main');
    for (const file of ['m4', 'm5']) await commit('main', file);
    const refs = ['main', 'main~2', 'feature', 'main', 'main~4', 'feature~1', 'main~1', 'main'];
    for (const ref of refs) {
      const expected = Number(await git(own.path, ['rev-list', '--count', ref]));
      assert.equal(await own.countCommits({ ref }), expected, ref);
    }
    await commit('main', 'm6');
    assert.equal(await own.countCommits({ ref: 'main' }), Number(await git(own.path, ['rev-list', '--count', 'main'])), 'after a push');
  });

  it('accepts a current last_commit_id and starts new branches from startRef', async () => {
    const last = await repository.lastCommitFor('main', 'lib/a.txt');
    const updated = await repository.commitFiles({
      branch: 'main', message: 'Fresh edit', author: ANN,
      actions: [{ action: 'update', file_path: 'lib/a.txt', content: text('a3\n'), last_commit_id: last!.id.slice(0, 12) }],
    });
    const feature = await repository.commitFiles({
      branch: 'feature', startRef: 'main', message: 'On a feature', author: ANN,
      actions: [{ action: 'create', file_path: 'feature.txt', content: text('f\n') }],
    });
    assert.deepEqual(feature.parent_ids, [updated.id]);
    assert.equal(await repository.resolveCommit('main'), updated.id);
  });

  it('lets exactly one of two concurrent commits to a branch win and loses nothing', async () => {
    const before = await repository.resolveCommit('main');
    const attempt = (name: string): Promise<unknown> =>
      repository.commitFiles({ branch: 'main', message: name, author: ANN, actions: [{ action: 'create', file_path: `${name}.txt`, content: text(name) }] });
    const results = await Promise.allSettled([attempt('left'), attempt('right')]);
    const won = results.filter((result) => result.status === 'fulfilled');
    const lost = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    assert.equal(won.length, 1);
    assert.equal(lost.length, 1);
    answeredWith(400, undefined, COMMIT_WRITE_ANSWERS)(lost[0]!.reason);
    assert.match((lost[0]!.reason as Error).message, /the branch changed since you started editing it/);
    const head = await repository.commit('main');
    assert.deepEqual(head?.parent_ids, [before]);
    const winner = (won[0] as PromiseFulfilledResult<{ id: string }>).value;
    assert.equal(head?.id, winner.id);

    // Many writers in a row: every success is on the branch, every failure a 400.
    const many = await Promise.allSettled(Array.from({ length: 6 }, (_, index) => attempt(`burst-${index}`)));
    const ids = many.flatMap((result) => (result.status === 'fulfilled' ? [(result.value as { id: string }).id] : []));
    assert.ok(ids.length >= 1);
    for (const result of many) if (result.status === 'rejected') answeredWith(400, undefined, COMMIT_WRITE_ANSWERS)(result.reason);
    const history = new Set((await repository.log({ offset: 0, limit: 50 })).map((commit) => commit.id));
    for (const id of ids) assert.ok(history.has(id), `commit ${id} reported as written is on main`);
  });

  it('cherry-picks onto another branch and refuses conflicts', async () => {
    await repository.createBranch('stable', 'main');
    const fix = await repository.commitFiles({ branch: 'main', message: 'Fix bug\n\nDetails.', author: BOB, actions: [{ action: 'create', file_path: 'fix.txt', content: text('fixed\n') }] });
    const picked = await repository.cherryPick(fix.id, 'stable', ANN);
    assert.equal(picked.author.name, BOB.name);
    assert.equal(picked.author.date, fix.author.date);
    assert.equal(picked.committer.name, ANN.name);
    assert.equal(picked.message, `Fix bug\n\nDetails.\n\n(cherry picked from commit ${fix.id})`);
    assert.equal(await repository.resolveCommit('stable'), picked.id);
    assert.equal(await git(repository.path, ['show', 'stable:fix.txt']), 'fixed');
    await rejectsWith(repository.cherryPick(fix.id, 'stable', ANN), COMMIT_MESSAGES.cherryPickFailed);

    await repository.commitFiles({ branch: 'stable', message: 'Diverge', author: ANN, actions: [{ action: 'update', file_path: 'fix.txt', content: text('stable version\n') }] });
    const clash = await repository.commitFiles({ branch: 'main', message: 'Clash', author: ANN, actions: [{ action: 'update', file_path: 'fix.txt', content: text('main version\n') }] });
    const stableTip = await repository.resolveCommit('stable');
    await rejectsWith(repository.cherryPick(clash.id, 'stable', ANN), COMMIT_MESSAGES.cherryPickFailed);
    assert.equal(await repository.resolveCommit('stable'), stableTip);
    await assert.rejects(repository.cherryPick(clash.id, 'missing-branch', ANN), answeredWith(404));
    await assert.rejects(repository.cherryPick('f'.repeat(40), 'stable', ANN), answeredWith(404));
  });

  it('creates and deletes branches with CAS semantics', async () => {
    assert.equal(await repository.createBranch('topic/one', 'main~1'), true);
    assert.equal(await repository.createBranch('topic/one', 'main'), false);
    assert.equal((await repository.branch('topic/one'))?.commit.id, await repository.resolveCommit('main~1'));
    await assert.rejects(repository.createBranch('bad..name', 'main'), answeredWith(400));
    await assert.rejects(repository.createBranch('ok-name', 'no-such-ref'), { code: 'GANTRY_E_REF_NOT_FOUND' });
    await assert.rejects(repository.createBranch('topic/one/deeper', 'main'), answeredWith(400));
    assert.ok((await repository.branches()).some((branch) => branch.name === 'topic/one'));
    assert.equal(await repository.deleteBranch('topic/one'), true);
    assert.equal(await repository.deleteBranch('topic/one'), false);
    assert.equal(await repository.branch('topic/one'), null);
  });

  it('creates annotated and lightweight tags', async () => {
    const head = await repository.resolveCommit('main');
    assert.equal(await repository.createTag('v1.0', 'main', 'Release 1.0\n\nNotes', BOB), true);
    assert.equal(await repository.createTag('light', head!, null, BOB), true);
    assert.equal(await repository.createTag('v1.0', 'main', 'again', BOB), false);
    await assert.rejects(repository.createTag('bad tag', 'main', null, BOB), answeredWith(400));
    await assert.rejects(repository.createTag('v2', 'nowhere', null, BOB), { code: 'GANTRY_E_REF_NOT_FOUND' });
    const annotated = await repository.tag('v1.0');
    assert.equal(annotated?.commit.id, head);
    assert.notEqual(annotated?.target, head);
    assert.equal(annotated?.message, 'Release 1.0\n\nNotes');
    assert.equal(annotated?.tagger?.name, BOB.name);
    assert.equal(await git(repository.path, ['cat-file', '-t', 'v1.0']), 'tag');
    const light = await repository.tag('light');
    assert.equal(light?.target, head);
    assert.equal(light?.message, null);
    assert.equal(light?.tagger, null);
    assert.deepEqual((await repository.tags()).map((tag) => tag.name), ['light', 'v1.0']);
    assert.equal(await repository.deleteTag('light'), true);
    assert.equal(await repository.deleteTag('light'), false);
    assert.equal(await repository.tag('light'), null);
  });

  it('imports tags on objects it holds in one transaction: all or none, names git refuses left out', async () => {
    const head = (await repository.resolveCommit('main'))!;
    const annotated = (await repository.tag('v1.0'))?.target;
    assert.ok(annotated !== undefined && annotated !== head);
    assert.equal(await repository.importTags([{ name: 'imported/one', object: head }, { name: 'imported-two', object: annotated }, { name: 'bad..name', object: head }]), true);
    assert.equal((await repository.tag('imported/one'))?.target, head);
    assert.equal((await repository.tag('imported-two'))?.target, annotated);
    assert.equal((await repository.tag('bad..name')) ?? null, null);
    // One that exists fails the whole import: the other is not created either.
    assert.equal(await repository.importTags([{ name: 'imported-three', object: head }, { name: 'imported-two', object: head }]), false);
    assert.equal((await repository.tag('imported-three')) ?? null, null);
    assert.equal((await repository.tag('imported-two'))?.target, annotated);
    assert.equal(await repository.importTags([]), true);
  });

  it('imports branches on commits it holds in one transaction: all or none, names git refuses left out', async () => {
    const head = (await repository.resolveCommit('main'))!;
    assert.equal(await repository.importBranches([{ name: 'imported/branch', object: head }, { name: 'bad..branch', object: head }]), true);
    assert.equal(await repository.resolveCommit('refs/heads/imported/branch'), head);
    assert.equal(await repository.resolveCommit('refs/heads/bad..branch'), null);
    assert.equal(await repository.importBranches([{ name: 'imported-other', object: head }, { name: 'main', object: head }]), false);
    assert.equal(await repository.resolveCommit('refs/heads/imported-other'), null);
  });

  it('forks, switches the default branch and removes repositories', async () => {
    const forkId = 500;
    await fixture.manager.fork(1, forkId);
    const fork = fixture.manager.open(forkId);
    assert.equal(await fork.resolveCommit('main'), await repository.resolveCommit('main'));
    assert.equal(await fork.resolveCommit('v1.0'), await repository.resolveCommit('v1.0'));
    assert.equal(await git(fork.path, ['config', '--get-regexp', '^remote\\.']).catch(() => ''), '');
    await fork.setDefaultBranch('stable');
    assert.equal(await fork.defaultBranch(), 'stable');
    assert.equal(await repository.defaultBranch(), 'main');
    await fixture.manager.remove(forkId);
    assert.equal(await fixture.manager.exists(forkId), false);
    await fixture.manager.remove(forkId);
  });
});
