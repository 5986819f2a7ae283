import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { BranchPushRules } from '../../src/coordinator/services/repository/git-http/push-policy.ts';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { addMember, makeGroup, makeUser, type TestUser } from './groups-fixtures.ts';

const ZERO = '0'.repeat(40);
const MESSAGES = {
  push: 'remote: You are not allowed to push code to protected branches on this project.',
  force: 'remote: You are not allowed to force push code to a protected branch on this project.',
  delete: 'remote: You can only delete protected branches using the web interface.',
};

/** GitLab wildcards: `*` matches any characters, `/` included; everything else is literal. */
function matchesPattern(pattern: string, branch: string): boolean {
  const source = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${source}$`).test(branch);
}

/**
 * Stand-in for ProtectedBranchesService: `main` may be pushed by the users in `mainPushers`,
 * `release/*` by nobody.
 */
function standInRules(mainPushers: Set<number>): BranchPushRules {
  const protections = [
    { pattern: 'main', pushers: mainPushers },
    { pattern: 'release/*', pushers: new Set<number>() },
  ];
  const find = (branch: string) => protections.find((protection) => matchesPattern(protection.pattern, branch)) ?? null;
  return {
    protectionFor: async (_project, branch) => find(branch),
    canPush: async (_project, actor, branch) => {
      const protection = find(branch);
      return protection === null || (actor !== null && protection.pushers.has(actor.id));
    },
  };
}

describe('git over HTTP: protected branches', () => {
  const mainPushers = new Set<number>();
  let fixture: GitHttpFixture;
  let developer: TestUser;
  let maintainer: TestUser;
  let project: ProjectRecord;
  let devClone: string;
  let maintainerClone: string;

  const git = (cwd: string, ...args: string[]) => fixture.git(args, { cwd });
  const remoteTip = async (ref: string): Promise<string> =>
    (await fixture.git(['ls-remote', fixture.url('guarded/app', { user: maintainer.username, secret: maintainer.token }), ref])).stdout.split('\t')[0] ?? '';
  const commit = async (cwd: string, message: string): Promise<string> => {
    await git(cwd, 'commit', '--allow-empty', '-m', message);
    return (await git(cwd, 'rev-parse', 'HEAD')).stdout.trim();
  };

  before(async () => {
    fixture = await startGitHttpFixture({ branchRules: standInRules(mainPushers) });
    developer = await makeUser(fixture.gantry, 'developer');
    maintainer = await makeUser(fixture.gantry, 'maintainer');
    mainPushers.add(maintainer.id);
    const group = await makeGroup(fixture.gantry, 'guarded');
    project = await fixture.project(group.id, 'app', { withReadme: true });
    await addMember(fixture.gantry, { type: 'project', id: project.id }, developer.id, 30);
    await addMember(fixture.gantry, { type: 'project', id: project.id }, maintainer.id, 40);
    for (const [user, directory] of [[developer, 'dev'], [maintainer, 'maintainer']] as const) {
      const cloned = await fixture.git(['clone', fixture.url('guarded/app', { user: user.username, secret: user.token }), directory]);
      assert.equal(cloned.code, 0, cloned.stderr);
    }
    devClone = path.join(fixture.workDir, 'dev');
    maintainerClone = path.join(fixture.workDir, 'maintainer');
  });

  beforeEach(async () => {
    fixture.pushEvents.length = 0;
    for (const cwd of [devClone, maintainerClone]) {
      await git(cwd, 'fetch', 'origin');
      await git(cwd, 'checkout', '-q', '-B', 'main', 'origin/main');
    }
  });

  after(async () => {
    await fixture?.close();
  });

  it('refuses a push to a protected branch by a user who may not push there, and publishes nothing', async () => {
    const tip = await remoteTip('refs/heads/main');
    await commit(devClone, 'developer on main');
    const push = await git(devClone, 'push', 'origin', 'main');
    assert.notEqual(push.code, 0);
    assert.ok(push.stderr.includes(MESSAGES.push), push.stderr);
    assert.match(push.stderr, /\[remote rejected\] main -> main \(pre-receive hook declined\)/);
    assert.equal(await remoteTip('refs/heads/main'), tip);
    assert.deepEqual(fixture.pushEvents, []);
  });

  it('accepts a fast-forward push to a protected branch from an allowed user', async () => {
    const before = await remoteTip('refs/heads/main');
    const after = await commit(maintainerClone, 'maintainer on main');
    const push = await git(maintainerClone, 'push', 'origin', 'main');
    assert.equal(push.code, 0, push.stderr);
    assert.deepEqual(fixture.pushEvents, [{ project_id: project.id, ref: 'refs/heads/main', before, after, user_id: maintainer.id }]);
  });

  it('refuses a force push to a protected branch, even from an allowed user', async () => {
    const tip = await remoteTip('refs/heads/main');
    await git(maintainerClone, 'reset', '-q', '--hard', 'HEAD~1');
    await commit(maintainerClone, 'rewritten history');
    const push = await git(maintainerClone, 'push', '--force', 'origin', 'main');
    assert.notEqual(push.code, 0);
    assert.ok(push.stderr.includes(MESSAGES.force), push.stderr);
    assert.equal(await remoteTip('refs/heads/main'), tip);
  });

  it('refuses deleting a protected branch', async () => {
    const push = await git(maintainerClone, 'push', 'origin', '--delete', 'main');
    assert.notEqual(push.code, 0);
    assert.ok(push.stderr.includes(MESSAGES.delete), push.stderr);
    assert.notEqual(await remoteTip('refs/heads/main'), '');
  });

  it('applies wildcard patterns across slashes and leaves other branches alone', async () => {
    await commit(devClone, 'release work');
    const refused = await git(devClone, 'push', 'origin', 'HEAD:refs/heads/release/1.0/hotfix');
    assert.notEqual(refused.code, 0);
    assert.ok(refused.stderr.includes(MESSAGES.push), refused.stderr);
    assert.equal(await remoteTip('refs/heads/release/1.0/hotfix'), '');

    const accepted = await git(devClone, 'push', 'origin', 'HEAD:refs/heads/release-notes');
    assert.equal(accepted.code, 0, accepted.stderr);
    assert.equal(fixture.pushEvents.length, 1);
    assert.equal(fixture.pushEvents[0]!.ref, 'refs/heads/release-notes');
  });

  it('allows force pushes and deletion of unprotected branches (deletion event has after = zeros)', async () => {
    const first = await commit(devClone, 'topic');
    assert.equal((await git(devClone, 'push', 'origin', 'HEAD:refs/heads/topic')).code, 0);
    await git(devClone, 'reset', '-q', '--hard', 'HEAD~1');
    const rewritten = await commit(devClone, 'topic rewritten');
    const forced = await git(devClone, 'push', '--force', 'origin', 'HEAD:refs/heads/topic');
    assert.equal(forced.code, 0, forced.stderr);
    const deleted = await git(devClone, 'push', 'origin', '--delete', 'topic');
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.deepEqual(
      fixture.pushEvents.map((event) => [event.before, event.after]),
      [[ZERO, first], [first, rewritten], [rewritten, ZERO]],
    );
  });

  it('refuses the whole push when one of its refs is refused', async () => {
    await commit(devClone, 'mixed push');
    const push = await git(devClone, 'push', 'origin', 'HEAD:refs/heads/main', 'HEAD:refs/heads/side');
    assert.notEqual(push.code, 0);
    assert.equal(await remoteTip('refs/heads/side'), '');
    assert.deepEqual(fixture.pushEvents, []);
  });
});

/**
 * Through the coordinator's own ProtectedBranchesService: the default branch is protected by
 * the default_branch_protection setting (GitLab's default: only Maintainers push); app.ts hands
 * context.protectedBranches to registerGitHttp.
 */
describe('git over HTTP: default branch protection through the coordinator', () => {
  let fixture: GitHttpFixture | undefined;
  const wired = async (): Promise<GitHttpFixture> => {
    fixture ??= await startGitHttpFixture();
    return fixture;
  };

  after(async () => {
    await fixture?.close();
  });

  it('refuses a developer push to the default branch and accepts a maintainer push', async () => {
    const gantry = await wired();
    const developer = await makeUser(gantry.gantry, 'developer');
    const maintainer = await makeUser(gantry.gantry, 'maintainer');
    const group = await makeGroup(gantry.gantry, 'real');
    const project = await gantry.project(group.id, 'app', { withReadme: true });
    await addMember(gantry.gantry, { type: 'project', id: project.id }, developer.id, 30);
    await addMember(gantry.gantry, { type: 'project', id: project.id }, maintainer.id, 40);
    for (const [user, allowed] of [[developer, false], [maintainer, true]] as const) {
      const directory = `real-${user.username}`;
      const clone = await gantry.git(['clone', gantry.url('real/app', { user: user.username, secret: user.token }), directory]);
      assert.equal(clone.code, 0, clone.stderr);
      const cwd = path.join(gantry.workDir, directory);
      await gantry.git(['commit', '--allow-empty', '-m', `by ${user.username}`], { cwd });
      const push = await gantry.git(['push', 'origin', 'HEAD:refs/heads/main'], { cwd });
      if (allowed) assert.equal(push.code, 0, push.stderr);
      else assert.ok(push.stderr.includes(MESSAGES.push), push.stderr);
    }
  });

  it('makes the first branch pushed to an empty project its default branch, protected by a rule of its own', async () => {
    const gantry = await wired();
    const maintainer = await makeUser(gantry.gantry, 'first-pusher');
    const group = await makeGroup(gantry.gantry, 'first');
    const project = await gantry.project(group.id, 'app');
    await addMember(gantry.gantry, { type: 'project', id: project.id }, maintainer.id, 40);
    const cwd = path.join(gantry.workDir, 'first-local');
    assert.equal((await gantry.git(['init', '-q', '-b', 'master', cwd])).code, 0);
    await gantry.git(['commit', '--allow-empty', '-m', 'first'], { cwd });
    const push = await gantry.git(['push', gantry.url('first/app', { user: maintainer.username, secret: maintainer.token }), 'master'], { cwd });
    assert.equal(push.code, 0, push.stderr);
    const shown = await gantry.gantry.api('GET', `/projects/${project.id}`);
    assert.equal(shown.json.default_branch, 'master', 'HEAD named main, which did not exist: the pushed branch is the default');
    const rules = await gantry.gantry.api('GET', `/projects/${project.id}/protected_branches`);
    assert.deepEqual(rules.list.map((rule) => [rule.name, (rule.push_access_levels as Array<{ access_level: number }>)[0]?.access_level]), [['master', 40]]);
    assert.equal((await gantry.gantry.api('GET', `/projects/${project.id}/repository/branches/master`)).json.protected, true);
  });

  it('lets allowed pushers force push to a branch whose rule allows it, and only there', async () => {
    const gantry = await wired();
    const maintainer = await makeUser(gantry.gantry, 'forcer');
    const group = await makeGroup(gantry.gantry, 'forced');
    const project = await gantry.project(group.id, 'app', { withReadme: true });
    await addMember(gantry.gantry, { type: 'project', id: project.id }, maintainer.id, 40);
    const rules = `/projects/${project.id}/protected_branches`;
    const created = await gantry.gantry.api('POST', rules, { body: { name: 'hotfix/*', allow_force_push: true } });
    assert.equal(created.json.allow_force_push, true);
    await gantry.gantry.api('POST', rules, { body: { name: 'stable' } });
    const cwd = path.join(gantry.workDir, 'forced');
    assert.equal((await gantry.git(['clone', gantry.url('forced/app', { user: maintainer.username, secret: maintainer.token }), 'forced'])).code, 0);
    await gantry.git(['commit', '--allow-empty', '-m', 'one'], { cwd });
    for (const branch of ['hotfix/1', 'stable']) assert.equal((await gantry.git(['push', 'origin', `HEAD:refs/heads/${branch}`], { cwd })).code, 0);
    await gantry.git(['commit', '--amend', '--allow-empty', '-m', 'rewritten'], { cwd });
    const forced = await gantry.git(['push', '--force', 'origin', 'HEAD:refs/heads/hotfix/1'], { cwd });
    assert.equal(forced.code, 0, forced.stderr);
    const refused = await gantry.git(['push', '--force', 'origin', 'HEAD:refs/heads/stable'], { cwd });
    assert.ok(refused.stderr.includes(MESSAGES.force), refused.stderr);
  });
});
