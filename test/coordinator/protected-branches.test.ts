import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { wildcardMatches } from '../../src/coordinator/services/repository/protected-branches.ts';
import type { ProjectRecord, UserRecord } from '../../src/storage/types.ts';
import { addMember, makeUser, type TestUser } from './groups-fixtures.ts';
import { enc, startRepositoryFixture, type RepositoryFixture } from './repository-fixtures.ts';

describe('wildcardMatches', () => {
  it('matches exact names and * across slashes', () => {
    assert.equal(wildcardMatches('main', 'main'), true);
    assert.equal(wildcardMatches('main', 'main2'), false);
    assert.equal(wildcardMatches('release/*', 'release/1.0/hotfix'), true);
    assert.equal(wildcardMatches('*-stable', 'v1-stable'), true);
    assert.equal(wildcardMatches('*-stable', 'v1-stable-x'), false);
    assert.equal(wildcardMatches('v1.*', 'v1x0'), false);
  });
});

describe('protected branches API and ProtectedBranchesService', () => {
  let fx: RepositoryFixture;
  let project: ProjectRecord & { full_path: string };
  let maintainer: TestUser;
  const url = (suffix = '') => `/projects/${project.id}/protected_branches${suffix}`;
  const user = async (id: number): Promise<UserRecord> => (await fx.gantry.coordinator.context.stores.users.findById(id))!;

  before(async () => {
    fx = await startRepositoryFixture();
    project = await fx.project('guarded', { withReadme: true });
    maintainer = await makeUser(fx.gantry, 'guardian');
    await addMember(fx.gantry, { type: 'project', id: project.id }, maintainer.id, 40);
  });
  after(() => fx.close());

  it('creates a rule with default levels and GitLab descriptions', async () => {
    const created = await fx.gantry.api('POST', url(), { form: { name: 'main' }, token: maintainer.token });
    assert.equal(created.status, 201);
    assert.deepEqual(created.json, {
      id: created.json.id,
      name: 'main',
      push_access_levels: [{ access_level: 40, access_level_description: 'Maintainers' }],
      merge_access_levels: [{ access_level: 40, access_level_description: 'Maintainers' }],
      allow_force_push: false,
    });
    const wildcard = await fx.gantry.api('POST', url(), { body: { name: 'release/*', push_access_level: 30, merge_access_level: 0 } });
    assert.equal(wildcard.status, 201);
    assert.deepEqual(wildcard.json.push_access_levels, [{ access_level: 30, access_level_description: 'Developers + Maintainers' }]);
    assert.deepEqual(wildcard.json.merge_access_levels, [{ access_level: 0, access_level_description: 'No one' }]);
  });

  it('refuses duplicates with 409 and bad levels with 400', async () => {
    const duplicate = await fx.gantry.api('POST', url(), { form: { name: 'main' } });
    assert.deepEqual([duplicate.status, duplicate.json], [409, { message: "Protected branch 'main' already exists" }]);
    const bad = await fx.gantry.api('POST', url(), { form: { name: 'x', push_access_level: '20' } });
    assert.deepEqual([bad.status, bad.json], [400, { error: 'push_access_level does not have a valid value' }]);
    assert.equal((await fx.gantry.api('POST', url(), { form: { name: 'x', merge_access_level: 'lots' } })).status, 400);
    assert.deepEqual((await fx.gantry.api('POST', url(), { form: {} })).json, { error: 'name is missing' });
  });

  it('lists with pagination and gets URL-encoded names and wildcards', async () => {
    const list = await fx.gantry.api('GET', `${url()}?per_page=1`);
    assert.equal(list.status, 200);
    assert.equal(list.headers['x-total'], '2');
    assert.deepEqual(list.list.map((rule) => rule.name), ['main']);
    const one = await fx.gantry.api('GET', url(`/${enc('release/*')}`));
    assert.equal(one.status, 200);
    assert.equal(one.json.name, 'release/*');
    assert.equal((await fx.gantry.api('GET', url('/unknown'))).status, 404);
  });

  it('needs Maintainer: developer 403, stranger 404, anonymous 401', async () => {
    assert.equal((await fx.gantry.api('GET', url(), { token: fx.developer.token })).status, 403);
    assert.equal((await fx.gantry.api('POST', url(), { form: { name: 'dev' }, token: fx.developer.token })).status, 403);
    assert.equal((await fx.gantry.api('GET', url(), { token: fx.stranger.token })).status, 404);
    assert.equal((await fx.gantry.api('GET', url(), { token: null })).status, 401);
  });

  it('decides push and merge by rule: exact, wildcard, level 0, admins', async () => {
    const rules = fx.gantry.coordinator.context.protectedBranches;
    const developer = await user(fx.developer.id);
    const keeper = await user(maintainer.id);
    const root = await user(1);
    assert.equal(await rules.canPush(project, developer, 'main'), false);
    assert.equal(await rules.canPush(project, keeper, 'main'), true);
    assert.equal(await rules.canPush(project, developer, 'release/1/x'), true);
    assert.equal(await rules.canMerge(project, keeper, 'release/1/x'), false);
    assert.equal(await rules.canMerge(project, root, 'release/1/x'), true);
    assert.equal(await rules.canPush(project, developer, 'free'), true);
    assert.equal(await rules.canPush(project, await user(fx.reporter.id), 'free'), false);
    assert.equal(await rules.protectionFor(project, 'free'), null);
    assert.deepEqual(await rules.protectionFor(project, 'release/2'), { pattern: 'release/*', push_access_level: 30, merge_access_level: 0, allow_force_push: false });
    const branch = await fx.gantry.api('GET', `/projects/${project.id}/repository/branches/main`, { token: fx.developer.token });
    assert.equal(branch.json.protected, true);
    assert.equal(branch.json.can_push, false);
    const commit = await fx.gantry.api('POST', `/projects/${project.id}/repository/commits`, {
      body: { branch: 'main', commit_message: 'no', actions: [{ action: 'create', file_path: 'n.txt', content: 'n' }] },
      token: fx.developer.token,
    });
    assert.equal(commit.status, 403);
  });

  it('protects a default branch when it is made, with a rule of the setting\'s levels that can be removed', async () => {
    const { settings, protectedBranches } = fx.gantry.coordinator.context;
    const developer = await user(fx.developer.id);
    const levelsOf = async (projectId: number) => (await fx.gantry.api('GET', `/projects/${projectId}/protected_branches`)).list.map((rule) => [rule.name, (rule.push_access_levels as Array<{ access_level: number }>)[0]?.access_level, (rule.merge_access_levels as Array<{ access_level: number }>)[0]?.access_level]);
    const made: Array<[number, number]> = [];
    for (const [setting, expected] of [[0, []], [1, [['main', 30, 30]]], [2, [['main', 40, 40]]]] as const) {
      await settings.update({ default_branch_protection: setting });
      const created = await fx.gantry.api('POST', '/projects', { body: { name: `defaults-${setting}`, initialize_with_readme: true } });
      assert.equal(created.status, 201, created.text);
      const id = Number(created.json.id);
      assert.deepEqual(await levelsOf(id), expected, `setting ${setting}, a project made with a README`);
      made.push([id, setting]);
    }
    // A rule, not the setting read at each check: changing the setting leaves it as it is.
    await settings.update({ default_branch_protection: 0 });
    assert.deepEqual(await levelsOf(made[2]![0]), [['main', 40, 40]]);
    const strict = (await fx.gantry.coordinator.context.stores.projects.findById(made[2]![0]))!;
    await addMember(fx.gantry, { type: 'project', id: strict.id }, developer.id, 30);
    assert.equal(await protectedBranches.canPush(strict, developer, 'main'), false);
    const removed = await fx.gantry.api('DELETE', `/projects/${strict.id}/protected_branches/main`);
    assert.equal(removed.status, 204);
    assert.equal(await protectedBranches.canPush(strict, developer, 'main'), true, 'removing the rule unprotects the default branch');
    assert.equal((await fx.gantry.api('GET', `/projects/${strict.id}/repository/branches/main`)).json.protected, false);

    // The first branch of an empty repository, made by a commit: it becomes the default and gets its rule, unless one covers it.
    await settings.update({ default_branch_protection: 2 });
    const empty = await fx.project('first-branch');
    const first = await fx.gantry.api('POST', `/projects/${empty.id}/repository/commits`, { body: { branch: 'master', commit_message: 'first', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] } });
    assert.equal(first.status, 201, first.text);
    assert.equal((await fx.gantry.api('GET', `/projects/${empty.id}`)).json.default_branch, 'master');
    assert.deepEqual(await levelsOf(empty.id), [['master', 40, 40]]);
    const covered = await fx.project('covered-branch');
    assert.equal((await fx.gantry.api('POST', `/projects/${covered.id}/protected_branches`, { form: { name: 'ma*', push_access_level: '30' } })).status, 201);
    assert.equal((await fx.gantry.api('POST', `/projects/${covered.id}/repository/commits`, { body: { branch: 'main', commit_message: 'first', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] } })).status, 201);
    assert.deepEqual(await levelsOf(covered.id), [['ma*', 30, 40]]);
    await settings.update({ default_branch_protection: 0 });
  });

  it('deletes rules with 204 and 404s unknown ones', async () => {
    assert.equal((await fx.gantry.api('DELETE', url(`/${enc('release/*')}`), { token: fx.developer.token })).status, 403);
    assert.equal((await fx.gantry.api('DELETE', url(`/${enc('release/*')}`), { token: maintainer.token })).status, 204);
    assert.equal((await fx.gantry.api('DELETE', url(`/${enc('release/*')}`))).status, 404);
    assert.equal(await fx.gantry.coordinator.context.protectedBranches.protectionFor(project, 'release/2'), null);
  });

  it('forgets a deleted project\'s rules', async () => {
    const { events, stores } = fx.gantry.coordinator.context;
    events.publishProjectDeleted({ project_id: project.id });
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(await stores.protectedBranches.listForProject(project.id), []);
  });
});
