import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { addMember, makeGroup, makeUser, type TestUser } from './groups-fixtures.ts';

const SHA_NAME = '0123456789abcdef0123456789abcdef01234567';

/**
 * GitLab's Gitlab::GitRefValidator and its push checks (BranchCheck, TagCheck) wherever a
 * branch or tag is written: branches, tags and commits APIs, and git pushes.
 */
describe('branch and tag names', () => {
  let fixture: GitHttpFixture;
  let developer: TestUser;
  let project: ProjectRecord;
  let clone: string;
  const api = (...args: Parameters<GitHttpFixture['gantry']['api']>) => fixture.gantry.api(...args);
  const git = (...args: string[]) => fixture.git(args, { cwd: clone });

  before(async () => {
    fixture = await startGitHttpFixture();
    developer = await makeUser(fixture.gantry, 'names-developer');
    const group = await makeGroup(fixture.gantry, 'names');
    project = await fixture.project(group.id, 'app', { withReadme: true });
    await addMember(fixture.gantry, { type: 'project', id: project.id }, developer.id, 30);
    const cloned = await fixture.git(['clone', fixture.url('names/app', { user: developer.username, secret: developer.token }), 'app']);
    assert.equal(cloned.code, 0, cloned.stderr);
    clone = path.join(fixture.workDir, 'app');
  });
  after(() => fixture.close());

  it('refuses branch names GitLab refuses on POST /repository/branches (400), and keeps accepting the others', async () => {
    const branches = `/projects/${project.id}/repository/branches`;
    for (const name of ['refs/heads/main', 'refs/remotes/origin/main', 'heads/main', 'remotes/origin/main', 'HEAD', '-rf', 'a..b', 'x.lock', 'trailing/']) {
      const refused = await api('POST', branches, { body: { branch: name, ref: 'main' }, token: developer.token });
      assert.deepEqual([refused.status, refused.json], [400, { message: 'Branch name is invalid' }], name);
    }
    for (const name of [SHA_NAME, `${SHA_NAME}-fix`, SHA_NAME.toUpperCase()]) {
      const refused = await api('POST', branches, { body: { branch: name, ref: 'main' }, token: developer.token });
      assert.deepEqual([refused.status, refused.json], [400, { message: 'You cannot create a branch with a SHA-1 or SHA-256 branch name.' }], name);
    }
    for (const name of ['tags/v1', 'feature/heads/x', 'feature/x', `fix-${SHA_NAME}`]) {
      assert.equal((await api('POST', branches, { body: { branch: name, ref: 'main' }, token: developer.token })).status, 201, name);
    }
    const listed = (await api('GET', `${branches}?per_page=100`, { token: developer.token })).list.map((branch) => branch.name);
    assert.deepEqual(listed.filter((name) => String(name).startsWith('refs/')), []);
  });

  it('refuses such names for a new branch of POST /repository/commits, and tag names on POST /repository/tags (405)', async () => {
    const commit = await api('POST', `/projects/${project.id}/repository/commits`, {
      body: { branch: 'refs/heads/main', start_branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'x.txt', content: 'x' }] },
      token: developer.token,
    });
    assert.deepEqual([commit.status, commit.json], [400, { message: "Something went wrong when we tried to create 'refs/heads/main' for you: Branch name is invalid" }]);
    const tags = `/projects/${project.id}/repository/tags`;
    const expected: Array<[string, string]> = [
      ['refs/heads/v1', 'Tag name invalid'],
      ['HEAD', 'Tag name invalid'],
      ['refs/tags/v1', 'You cannot create a tag with a prohibited pattern.'],
      [SHA_NAME, 'You cannot create a tag with a SHA-1 or SHA-256 tag name.'],
    ];
    for (const [name, message] of expected) {
      const refused = await api('POST', tags, { body: { tag_name: name, ref: 'main' }, token: developer.token });
      assert.deepEqual([refused.status, refused.json], [405, { message }], name);
    }
    assert.equal((await api('POST', tags, { body: { tag_name: 'v1', ref: 'main' }, token: developer.token })).status, 201);
  });

  it('refuses pushing such branches and tags (GitLab\'s messages), but lets an existing one be deleted', async () => {
    const refusals: Array<[string, string]> = [
      ['HEAD:refs/heads/refs/heads/main', 'You cannot create a branch with an invalid name.'],
      ['HEAD:refs/heads/heads/main', 'You cannot create a branch with an invalid name.'],
      ['HEAD:refs/heads/HEAD', 'You cannot create a branch with an invalid name.'],
      [`HEAD:refs/heads/${SHA_NAME}`, 'You cannot create a branch with a SHA-1 or SHA-256 branch name.'],
      ['HEAD:refs/tags/refs/tags/v2', 'You cannot create a tag with a prohibited pattern.'],
      [`HEAD:refs/tags/${SHA_NAME}`, 'You cannot create a tag with a SHA-1 or SHA-256 tag name.'],
    ];
    for (const [refspec, message] of refusals) {
      const pushed = await git('push', 'origin', refspec);
      assert.notEqual(pushed.code, 0, refspec);
      assert.match(pushed.stderr, new RegExp(`remote: ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), refspec);
    }
    const refs = (await fixture.git(['ls-remote', fixture.url('names/app', { user: developer.username, secret: developer.token })])).stdout;
    assert.doesNotMatch(refs, /refs\/heads\/refs\/|refs\/heads\/HEAD|refs\/tags\/refs\/|refs\/(heads|tags)\/0123456789abcdef/);
    assert.equal((await git('push', 'origin', 'HEAD:refs/heads/pushed-fine')).code, 0);

    // A branch made before the rule (here straight in the repository) can still be deleted.
    const repository = fixture.gantry.coordinator.context.repositories.open(project.id);
    const tip = await repository.branch('main');
    assert.ok(await repository.createBranch('refs/heads/old', tip!.commit.id));
    const deleted = await git('push', 'origin', ':refs/heads/refs/heads/old');
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(await repository.branch('refs/heads/old'), null);
  });
});
