import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GitDiffStream, GitFileDiff, GitRepository } from '../../../src/storage/git/index.ts';
import { ANN, BOB, git, gitFixture, importCommits, type GitFixture } from './fixture.ts';
import { answeredWith } from '../../helpers/api-answer.ts';

const DAY = 86_400;

async function readAll(diffs: GitDiffStream | Promise<GitDiffStream>): Promise<GitFileDiff[]> {
  const files: GitFileDiff[] = [];
  for await (const file of await diffs) files.push(file);
  return files;
}
const START = Date.UTC(2024, 0, 1) / 1000;

describe('git storage reads', () => {
  let fixture: GitFixture;
  let repository: GitRepository;
  let empty: GitRepository;

  before(async () => {
    fixture = await gitFixture();
    await fixture.manager.create(1, { initializeWithReadme: false, defaultBranch: 'main', projectName: 'Reads', author: ANN });
    repository = fixture.manager.open(1);
    // Ten commits one day apart; odd ones touch docs/guide.md.
    await importCommits(
      repository.path,
      'main',
      Array.from({ length: 10 }, (_, index) => ({
        message: `Commit ${index}\n\nBody ${index}\n`,
        time: START + index * DAY,
        author: index % 3 === 0 ? BOB : ANN,
        files: index % 2 === 1 ? { 'docs/guide.md': `guide ${index}\n` } : { [`src/file-${index}.ts`]: `export const n = ${index};\n` },
      })),
    );
    await fixture.manager.create(2, { initializeWithReadme: false, defaultBranch: 'main', projectName: 'Empty', author: ANN });
    empty = fixture.manager.open(2);
  });

  after(async () => fixture.cleanup());

  it('answers every read of an empty repository with null or an empty list', async () => {
    assert.equal(await empty.isEmpty(), true);
    assert.equal(await empty.defaultBranch(), null);
    assert.equal(await empty.resolveCommit('main'), null);
    assert.deepEqual(await empty.branches(), []);
    assert.deepEqual(await empty.tags(), []);
    assert.equal(await empty.branch('main'), null);
    assert.equal(await empty.commit('HEAD'), null);
    assert.deepEqual(await empty.log({ offset: 0, limit: 20 }), []);
    assert.deepEqual(await empty.log({ all: true, offset: 0, limit: 20 }), []);
    assert.equal(await empty.countCommits({}), 0);
    assert.equal(await empty.tree('main', '', false), null);
    assert.equal(await empty.tree('main', '', true), null);
    assert.equal(await empty.blobAt('main', 'README.md'), null);
    assert.equal(await empty.lastCommitFor('main', 'README.md'), null);
    assert.deepEqual(await empty.contributors(), []);
    assert.deepEqual(await empty.mergedBranches('main'), []);
    assert.equal(await empty.isAncestor('main', 'main'), false);
    assert.deepEqual(await readAll(empty.commitDiff('HEAD')), []);
  });

  it('reads commits with parents, tree, people and UTC dates', async () => {
    const head = await repository.commit('main');
    assert.ok(head);
    assert.equal(head.title, 'Commit 9');
    assert.equal(head.message, 'Commit 9\n\nBody 9\n');
    assert.equal(head.author.date, new Date((START + 9 * DAY) * 1000).toISOString());
    assert.equal(head.author.email, BOB.email);
    assert.equal(head.parent_ids.length, 1);
    assert.equal(head.tree_id, await git(repository.path, ['rev-parse', 'main^{tree}']));
    assert.equal(await repository.resolveCommit('main~9'), await git(repository.path, ['rev-parse', 'main~9']));
    assert.equal(await repository.commit('no-such-branch'), null);
    assert.equal(await repository.commit('--output=/tmp/x'), null);
    assert.equal(await repository.defaultBranch(), 'main');
    const many = await repository.commits([head.id, head.parent_ids[0]!, 'f'.repeat(40)]);
    assert.equal(many.size, 2);
  });

  it('pages the log and filters it by path and date', async () => {
    const cli = (await git(repository.path, ['rev-list', 'main'])).split('\n');
    const first = await repository.log({ offset: 0, limit: 4 });
    assert.deepEqual(first.map((commit) => commit.id), cli.slice(0, 4));
    const second = await repository.log({ offset: 4, limit: 4 });
    assert.deepEqual(second.map((commit) => commit.id), cli.slice(4, 8));
    assert.equal(await repository.countCommits({}), 10);

    const guide = await repository.log({ path: 'docs/guide.md', offset: 0, limit: 20 });
    assert.deepEqual(guide.map((commit) => commit.title), ['Commit 9', 'Commit 7', 'Commit 5', 'Commit 3', 'Commit 1']);
    assert.equal(await repository.countCommits({ path: 'docs' }), 5);

    const since = new Date((START + 7 * DAY) * 1000).toISOString();
    const until = new Date((START + 8 * DAY) * 1000).toISOString();
    const window = await repository.log({ since, until, offset: 0, limit: 20 });
    assert.deepEqual(window.map((commit) => commit.title), ['Commit 8', 'Commit 7']);
    assert.equal(await repository.countCommits({ since }), 3);
    await assert.rejects(repository.log({ since: 'yesterday-ish', offset: 0, limit: 1 }), answeredWith(400));

    const last = await repository.lastCommitFor('main', 'docs/guide.md');
    assert.equal(last?.title, 'Commit 9');
    assert.equal((await repository.lastCommitFor('main', 'src/file-0.ts'))?.title, 'Commit 0');
    // A literal path by default; as a pathspec (cache:key:files) its wildcards match, `*` across slashes too.
    assert.equal(await repository.lastCommitFor('main', 'src/file-*.ts'), null);
    assert.equal((await repository.lastCommitFor('main', 'src/file-*.ts', { pathspec: true }))?.title, 'Commit 8');
    assert.equal((await repository.lastCommitFor('main', '*.ts', { pathspec: true }))?.title, 'Commit 8');
    assert.equal((await repository.lastCommitFor('main', 'src/file-[0-3].ts', { pathspec: true }))?.title, 'Commit 2');
    assert.equal(await repository.lastCommitFor('main', ':(exclude)docs', { pathspec: true }), null);
  });

  it('filters by author (taken literally), first parent and topological order', async () => {
    const byBob = await repository.log({ ref: 'main', author: BOB.email, offset: 0, limit: 50 });
    assert.ok(byBob.length > 0 && byBob.every((commit) => commit.author.email === BOB.email));
    assert.equal(await repository.countCommits({ ref: 'main', author: BOB.name }), byBob.length);
    assert.equal(await repository.countCommits({ ref: 'main', author: 'Bob.Builder' }), 0, 'a dot is a dot, not any character');
    const mainTip = await git(repository.path, ['rev-parse', 'main']);
    const sideTip = await git(repository.path, ['rev-parse', 'main~3']);
    const sideOnly = (await git(repository.path, ['commit-tree', 'main~3^{tree}', '-p', sideTip, '-m', 'side only'], undefined)).trim();
    const merge = (await git(repository.path, ['commit-tree', 'main^{tree}', '-p', mainTip, '-p', sideOnly, '-m', 'merge'])).trim();
    await git(repository.path, ['update-ref', 'refs/heads/merged', merge]);
    const walked = (await repository.log({ ref: 'merged', offset: 0, limit: 50 })).map((commit) => commit.id);
    const firstParents = (await repository.log({ ref: 'merged', firstParent: true, offset: 0, limit: 50 })).map((commit) => commit.id);
    assert.ok(walked.includes(sideOnly) && !firstParents.includes(sideOnly), 'the merged-in commit is off the first-parent line');
    assert.equal(await repository.countCommits({ ref: 'merged', firstParent: true }), firstParents.length);
    assert.equal(await repository.countCommits({ ref: 'merged' }), walked.length);
    const topo = (await repository.log({ ref: 'merged', order: 'topo', offset: 0, limit: 50 })).map((commit) => commit.id);
    assert.deepEqual([...topo].sort(), [...walked].sort());
    assert.equal(await repository.deleteBranch('merged'), true);
  });

  it('walks every branch with all', async () => {
    assert.equal(await repository.createBranch('side', 'main~5'), true);
    const side = await repository.commitFiles({ branch: 'side', message: 'Side work', author: BOB, actions: [{ action: 'create', file_path: 'side.txt', content: Buffer.from('side\n') }] });
    assert.equal(await repository.countCommits({ all: true }), 11);
    assert.equal(await repository.countCommits({ ref: 'side' }), 6);
    const all = await repository.log({ all: true, offset: 0, limit: 50 });
    assert.ok(all.some((commit) => commit.id === side.id));
    // Merged: reachable from the target, but not at its own commit (the target's own branch included).
    assert.equal(await repository.createBranch('behind', 'main~2'), true);
    assert.equal(await repository.createBranch('level', 'main'), true);
    assert.deepEqual(await repository.mergedBranches('main'), ['behind']);
    assert.deepEqual(await repository.mergedBranches('side'), []);
    assert.equal(await repository.deleteBranch('behind'), true);
    assert.equal(await repository.deleteBranch('level'), true);
    assert.equal(await repository.isAncestor('main~6', 'side'), true);
    assert.equal(await repository.isAncestor('main', 'side'), false);
    const compared = await repository.compare('main', 'side', false);
    assert.deepEqual(compared.commits.map((commit) => commit.id), [side.id]);
    assert.equal(compared.mergeBase, await repository.resolveCommit('main~5'));
    assert.deepEqual((await readAll(compared.diffs)).map((diff) => diff.new_path), ['side.txt']);
    const straight = await repository.compare('main', 'side', true);
    assert.ok((await readAll(straight.diffs)).length > 1);
    await assert.rejects(repository.compare('main', 'nope', false), answeredWith(404));
    assert.equal(await repository.deleteBranch('side'), true);
  });

  it('lists trees flat and recursive, and finds blobs', async () => {
    const root = await repository.tree('main', '', false);
    assert.deepEqual(root?.map((entry) => `${entry.type}:${entry.path}`), ['tree:docs', 'tree:src']);
    const docs = await repository.tree('main', 'docs/', false);
    assert.deepEqual(docs?.map((entry) => entry.path), ['docs/guide.md']);
    assert.equal(docs?.[0]?.mode, '100644');
    const recursive = await repository.tree('main', '', true);
    const cli = (await git(repository.path, ['ls-tree', '-r', '-t', '--name-only', 'main'])).split('\n');
    assert.deepEqual(recursive?.map((entry) => entry.path), cli);
    const sub = await repository.tree('main', 'src', true);
    assert.ok(sub?.every((entry) => entry.path.startsWith('src/') && entry.type === 'blob'));
    assert.equal(await repository.tree('main', 'docs/guide.md', false), null);
    assert.equal(await repository.tree('main', 'missing', true), null);
    assert.equal(await repository.tree('nope', '', false), null);

    const blob = await repository.blobAt('main', 'docs/guide.md');
    assert.equal(blob?.size, 'guide 9\n'.length);
    assert.equal(blob?.mode, '100644');
    assert.equal((await repository.readBlob(blob!.id))?.toString(), 'guide 9\n');
    assert.equal(await repository.blobSize(blob!.id), 8);
    assert.equal(await repository.blobAt('main', 'docs'), null);
    assert.equal(await repository.blobAt('main', 'docs/missing.md'), null);
    assert.equal(await repository.readBlob((await repository.resolveCommit('main'))!), null);
  });

  it('reads binary blobs and paths with spaces and non-ASCII names, streamed too', async () => {
    const binary = Buffer.from([0, 1, 2, 255, 254, 10, 0, 13]);
    const big = Buffer.alloc(3 * 1024 * 1024, 'x');
    await repository.commitFiles({
      branch: 'main', message: 'Odd files', author: ANN,
      actions: [
        { action: 'create', file_path: 'assets/logo.bin', content: binary },
        { action: 'create', file_path: 'docs/read me é.md', content: Buffer.from('Ünïcode\n') },
        { action: 'create', file_path: 'big.txt', content: big },
      ],
    });
    const found = await repository.blobAt('main', 'assets/logo.bin');
    assert.deepEqual(await repository.readBlob(found!.id), binary);
    const spaced = await repository.blobAt('main', 'docs/read me é.md');
    assert.equal((await repository.readBlob(spaced!.id))?.toString('utf8'), 'Ünïcode\n');
    const bigInfo = await repository.blobAt('main', 'big.txt');
    const chunks: Buffer[] = [];
    for await (const chunk of repository.streamBlob(bigInfo!.id)) chunks.push(chunk as Buffer);
    assert.equal(Buffer.concat(chunks).length, big.length);
    assert.equal((await repository.readBlob(bigInfo!.id))?.length, big.length);
    assert.ok((await repository.tree('main', 'docs', false))?.some((entry) => entry.name === 'read me é.md'));
    assert.equal((await repository.lastCommitFor('main', 'docs/read me é.md'))?.title, 'Odd files');
  });

  it('diffs commits GitLab-style and counts their lines', async () => {
    const commit = await repository.commitFiles({
      branch: 'main', message: 'Reshape', author: ANN,
      actions: [
        { action: 'move', previous_path: 'src/file-0.ts', file_path: 'src/zero.ts' },
        { action: 'update', file_path: 'src/file-2.ts', content: Buffer.from('export const n = 2;\nexport const m = 3;\n') },
        { action: 'delete', file_path: 'src/file-4.ts' },
        { action: 'create', file_path: 'new.txt', content: Buffer.from('a\nb\n') },
        { action: 'update', file_path: 'assets/logo.bin', content: Buffer.from([0, 9, 9]) },
      ],
    });
    const diffs = await readAll(repository.commitDiff(commit.id));
    const byPath = new Map(diffs.map((diff) => [diff.new_path, diff]));
    const moved = byPath.get('src/zero.ts');
    assert.equal(moved?.renamed_file, true);
    assert.equal(moved?.old_path, 'src/file-0.ts');
    assert.equal(moved?.diff, '');
    const updated = byPath.get('src/file-2.ts');
    assert.equal(updated?.diff, '@@ -1 +1,2 @@\n export const n = 2;\n+export const m = 3;\n');
    assert.equal(byPath.get('src/file-4.ts')?.deleted_file, true);
    assert.equal(byPath.get('src/file-4.ts')?.b_mode, '0');
    assert.equal(byPath.get('new.txt')?.new_file, true);
    assert.equal(byPath.get('new.txt')?.a_mode, '0');
    assert.match(byPath.get('assets/logo.bin')?.diff ?? '', /^Binary files a\/assets\/logo.bin and b\/assets\/logo.bin differ/);
    assert.deepEqual(await repository.commitStats(commit.id), { additions: 3, deletions: 1, total: 4 });
    const root = (await repository.log({ offset: 0, limit: 100 })).at(-1)!;
    assert.deepEqual((await readAll(repository.commitDiff(root.id))).map((diff) => diff.new_file), [true]);
  });

  it('lists contributors by commits with their lines', async () => {
    const contributors = await repository.contributors('main');
    const cli = await git(repository.path, ['shortlog', '-sne', 'main']);
    assert.equal(contributors.length, cli.split('\n').length);
    assert.equal(contributors[0]?.email, ANN.email);
    const bob = contributors.find((contributor) => contributor.email === BOB.email);
    assert.equal(bob?.commits, 4);
    assert.equal(bob?.additions, 4);
    assert.equal(bob?.deletions, 2);
    assert.ok(contributors[0]!.commits >= contributors[1]!.commits);
  });
});
