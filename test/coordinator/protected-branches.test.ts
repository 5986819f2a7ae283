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
    assert.deepEqual(await rules.protectionFor(project, 'release/2'), { pattern: 'release/*', push_access_level: 30, merge_access_level: 0, allow_force_push: false, fromDefaultBranchSetting: false });
    const branch = await fx.gantry.api('GET', `/projects/${project.id}/repository/branches/main`, { token: fx.developer.token });
    assert.equal(branch.json.protected, true);
    assert.equal(branch.json.can_push, false);
    const commit = await fx.gantry.api('POST', `/projects/${project.id}/repository/commits`, {
      body: { branch: 'main', commit_message: 'no', actions: [{ action: 'create', file_path: 'n.txt', content: 'n' }] },
      token: fx.developer.token,
    });
    assert.equal(commit.status, 403);
  });

  it('protects the default branch from the application setting unless a rule matches', async () => {
    const { settings, protectedBranches } = fx.gantry.coordinator.context;
    const other = await fx.project('defaults', { withReadme: true });
    const developer = await user(fx.developer.id);
    const expected: Array<[number, [number, number] | null]> = [[0, null], [1, [30, 30]], [2, [40, 40]], [3, [40, 30]]];
    for (const [setting, levels] of expected) {
      await settings.update({ default_branch_protection: setting });
      const protection = await protectedBranches.protectionFor(other, 'main');
      assert.deepEqual(protection && [protection.push_access_level, protection.merge_access_level], levels, `setting ${setting}`);
      assert.equal(protection?.fromDefaultBranchSetting ?? true, true);
      assert.equal(await protectedBranches.canPush(other, developer, 'main'), levels === null || levels[0] === 30);
    }
    await fx.gantry.api('POST', `/projects/${other.id}/protected_branches`, { form: { name: 'ma*', push_access_level: '30' } });
    assert.equal((await protectedBranches.protectionFor(other, 'main'))?.fromDefaultBranchSetting, false);
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
