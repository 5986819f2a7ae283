import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { addMember, makeGroup, makeUser, type TestUser } from './groups-fixtures.ts';

/** One tree entry: mode as git writes it (or any bytes), name, object id. */
type Entry = { mode: string; name: string; id: string };

describe('git over HTTP: pushes of dangerous trees are refused by git fsck', () => {
  let fixture: GitHttpFixture;
  let developer: TestUser;
  let project: ProjectRecord;
  let cwd: string;
  let scratch = 0;
  const credentials = (): { user: string; secret: string } => ({ user: developer.username, secret: developer.token });

  async function git(args: string[]): Promise<string> {
    const result = await fixture.git(args, { cwd });
    assert.equal(result.code, 0, `git ${args.join(' ')}: ${result.stderr}`);
    return result.stdout.trim();
  }

  /** Writes an object from bytes with `hash-object --literally`: git checks nothing, as a hostile client would not. */
  async function object(type: 'blob' | 'tree' | 'commit', bytes: Buffer | string): Promise<string> {
    const file = path.join(fixture.workDir, `object-${(scratch += 1)}`);
    writeFileSync(file, bytes);
    return git(['hash-object', '-w', '--literally', '-t', type, file]);
  }

  /** A tree from entries in the given order (callers keep git's order). */
  function tree(entries: Entry[]): Promise<string> {
    return object('tree', Buffer.concat(entries.map(({ mode, name, id }) => Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(id, 'hex')]))));
  }

  async function commitOnMain(treeId: string, header = 'author A U Thor <author@example.com> 1700000000 +0000\ncommitter A U Thor <author@example.com> 1700000000 +0000'): Promise<string> {
    const parent = await remoteMain();
    return object('commit', `tree ${treeId}\nparent ${parent}\n${header}\n\nA commit\n`);
  }

  async function remoteMain(): Promise<string> {
    const output = await git(['ls-remote', fixture.url('fsck-team/guarded', credentials()), 'refs/heads/main']);
    return output.split('\t')[0]!;
  }

  async function push(commit: string): Promise<{ code: number; stderr: string }> {
    return fixture.git(['push', fixture.url('fsck-team/guarded', credentials()), `${commit}:refs/heads/main`], { cwd });
  }

  async function assertRefused(treeId: string, message: RegExp): Promise<void> {
    const before = await remoteMain();
    const result = await push(await commitOnMain(treeId));
    assert.notEqual(result.code, 0, 'the push was accepted');
    assert.match(result.stderr, /remote: error: object [0-9a-f]{40}: /);
    assert.match(result.stderr, message);
    assert.equal(await remoteMain(), before, 'the branch moved');
  }

  before(async () => {
    fixture = await startGitHttpFixture();
    developer = await makeUser(fixture.gantry, 'pusher');
    const group = await makeGroup(fixture.gantry, 'fsck-team', { visibility: 'private' });
    project = await fixture.project(group.id, 'guarded', { withReadme: true });
    await addMember(fixture.gantry, { type: 'project', id: project.id }, developer.id, 40);
    const clone = await fixture.git(['clone', fixture.url('fsck-team/guarded', credentials()), 'guarded']);
    assert.equal(clone.code, 0, clone.stderr);
    cwd = path.join(fixture.workDir, 'guarded');
  });

  after(async () => {
    await fixture?.close();
  });

  const dotGitCases: Array<[string, (file: string) => Promise<string>]> = [
    ['.git/config', async (file) => tree([{ mode: '40000', name: '.git', id: await tree([{ mode: '100644', name: 'config', id: file }]) }])],
    ['.GIT', (file) => tree([{ mode: '100644', name: '.GIT', id: file }])],
    ['a/.git', async (file) => tree([{ mode: '40000', name: 'a', id: await tree([{ mode: '100644', name: '.git', id: file }]) }])],
    ['git~1 (NTFS short name)', (file) => tree([{ mode: '100644', name: 'git~1', id: file }])],
    ['.g\u200cit (HFS+ ignores U+200C)', (file) => tree([{ mode: '100644', name: '.g\u200cit', id: file }])],
    ['.git\u200d/ (HFS+ ignores U+200D)', async (file) => tree([{ mode: '40000', name: '.git\u200d', id: await tree([{ mode: '100644', name: 'hooks', id: file }]) }])],
  ];
  for (const [name, build] of dotGitCases) {
    it(`refuses a tree with ${name}`, async () => {
      const file = await object('blob', `[core]\n\tfsmonitor = "touch /tmp/pwned-${name.length}"\n`);
      await assertRefused(await build(file), /hasDotgit: contains '\.git'/);
    });
  }

  it('refuses a tree with a .. entry', async () => {
    await assertRefused(await tree([{ mode: '100644', name: '..', id: await object('blob', 'up\n') }]), /hasDotdot: contains '\.\.'/);
  });

  it('refuses .gitmodules as a symbolic link', async () => {
    const target = await object('blob', '/etc/passwd');
    await assertRefused(await tree([{ mode: '120000', name: '.gitmodules', id: target }]), /gitmodulesSymlink: \.gitmodules is a symbolic link/);
  });

  it('refuses a submodule named to escape the repository', async () => {
    const modules = await object('blob', '[submodule "../../../../tmp/evil"]\n\tpath = evil\n\turl = https://example.com/evil.git\n');
    await assertRefused(await tree([{ mode: '100644', name: '.gitmodules', id: modules }]), /gitmodulesName: disallowed submodule name: \.\.\/\.\.\/\.\.\/\.\.\/tmp\/evil/);
  });

  it('refuses a submodule URL that is a command-line option', async () => {
    const modules = await object('blob', '[submodule "x"]\n\tpath = x\n\turl = --upload-pack=touch${IFS}/tmp/pwned\n');
    await assertRefused(await tree([{ mode: '100644', name: '.gitmodules', id: modules }]), /gitmodulesUrl: disallowed submodule url: --upload-pack=/);
  });

  it('refuses them in a repository whose own config turned the checks off (an existing repository)', async () => {
    const gitDir = fixture.gantry.coordinator.context.repositories.open(project.id).path;
    writeFileSync(path.join(gitDir, 'config'), '[core]\n\trepositoryformatversion = 0\n\tbare = true\n[receive]\n\tfsckObjects = false\n[http]\n\treceivepack = true\n');
    await assertRefused(await tree([{ mode: '100644', name: '.Git', id: await object('blob', 'x\n') }]), /hasDotgit/);
  });

  it('still accepts what old git versions wrote: bad time zones, no space before the date, zero-padded modes', async () => {
    const readme = await object('blob', '# old\n');
    const subtree = await tree([{ mode: '100644', name: 'file', id: readme }]);
    // "040000" instead of "40000": zeroPaddedFilemode.
    const padded = await tree([{ mode: '100644', name: 'README.md', id: readme }, { mode: '040000', name: 'dir', id: subtree }]);
    const commit = await commitOnMain(padded, 'author Old Timer <old@example.com> 1100000000 +05180\ncommitter Old Timer <old@example.com>1100000000 +0000');
    const result = await push(commit);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(await remoteMain(), commit);
  });

  it('accepts an ordinary push', async () => {
    const commit = await commitOnMain(await tree([{ mode: '100644', name: 'README.md', id: await object('blob', '# fine\n') }]));
    const result = await push(commit);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(await remoteMain(), commit);
  });
});
