import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProject, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

const paths = (rows: Array<Record<string, unknown>>) => rows.map((row) => row.full_path);

describe('group listings', () => {
  let gantry: TestCoordinator;
  let alice: TestUser;
  let bob: TestUser;
  let outsider: TestUser;
  let external: TestUser;
  const ids: Record<string, number> = {};

  before(async () => {
    gantry = await startTestCoordinator();
    alice = await makeUser(gantry, 'alice');
    bob = await makeUser(gantry, 'bob');
    outsider = await makeUser(gantry, 'outsider');
    external = await makeUser(gantry, 'external-user', { external: true });
    // Names sort differently from paths: order_by must matter.
    ids.pub = (await makeGroup(gantry, 'a-public', { name: 'Zulu', visibility: 'public', token: alice.token })).id;
    ids.int = (await makeGroup(gantry, 'b-internal', { name: 'Yankee', visibility: 'internal', token: alice.token })).id;
    ids.priv = (await makeGroup(gantry, 'c-private', { name: 'Xray', visibility: 'private', token: alice.token })).id;
    ids.bobs = (await makeGroup(gantry, 'd-bobs', { name: 'Whiskey', visibility: 'private', token: bob.token })).id;
    ids.sub = (await makeGroup(gantry, 'sub', { name: 'Sub', visibility: 'public', parentId: ids.pub, token: alice.token })).id;
    ids.subPriv = (await makeGroup(gantry, 'sub-private', { name: 'Secret Sub', visibility: 'private', parentId: ids.pub, token: alice.token })).id;
    await addMember(gantry, { type: 'namespace', id: ids.priv }, bob.id, 30);
  });
  after(() => gantry.close());

  describe('GET /groups', () => {
    it('shows anonymous callers public groups only, subgroups included', async () => {
      const response = await gantry.api('GET', '/groups', { token: null });
      assert.equal(response.status, 200);
      assert.deepEqual(paths(response.list), ['a-public/sub', 'a-public']);
    });

    it('shows users their member groups by default; with all_available=true also public and internal ones; administrators everything', async () => {
      assert.deepEqual(paths((await gantry.api('GET', '/groups', { token: outsider.token })).list), []);
      assert.deepEqual(paths((await gantry.api('GET', '/groups', { token: bob.token })).list), ['d-bobs', 'c-private']);
      assert.deepEqual(paths((await gantry.api('GET', '/groups?all_available=true', { token: outsider.token })).list), ['a-public/sub', 'b-internal', 'a-public']);
      assert.deepEqual(paths((await gantry.api('GET', '/groups?all_available=true', { token: bob.token })).list), ['a-public/sub', 'd-bobs', 'c-private', 'b-internal', 'a-public']);
      assert.deepEqual(paths((await gantry.api('GET', '/groups?all_available=true', { token: external.token })).list), ['a-public/sub', 'a-public'], 'external users do not see internal groups');
      assert.equal((await gantry.api('GET', '/groups')).list.length, 6);
      assert.deepEqual(paths((await gantry.api('GET', '/groups?all_available=false')).list), [], 'an administrator who asks for memberships only (root is in none here)');
    });

    it('answers an external user 404 for an internal group by id or path, as the listing hides it; members of it read it', async () => {
      assert.equal((await gantry.api('GET', `/groups/${ids.int}`, { token: outsider.token })).status, 200);
      assert.equal((await gantry.api('GET', `/groups/${ids.int}`, { token: external.token })).status, 404);
      assert.equal((await gantry.api('GET', '/groups/b-internal', { token: external.token })).status, 404);
      assert.equal((await gantry.api('GET', `/groups/${ids.pub}`, { token: external.token })).status, 200);
      const invited = await makeUser(gantry, 'external-member', { external: true });
      await addMember(gantry, { type: 'namespace', id: ids.int }, invited.id, 10);
      assert.equal((await gantry.api('GET', `/groups/${ids.int}`, { token: invited.token })).status, 200);
    });

    it('shows a private group, with its ancestors, to members of a project inside it', async () => {
      const top = await makeGroup(gantry, 'e-top', { visibility: 'private' });
      const inner = await makeGroup(gantry, 'e-inner', { visibility: 'private', parentId: top.id });
      const project = await makeProject(gantry, inner.id, 'e-project');
      const member = await makeUser(gantry, 'project-member');
      await addMember(gantry, { type: 'project', id: project.id }, member.id, 20);
      const mine = await gantry.api('GET', '/groups?all_available=false&order_by=path', { token: member.token });
      assert.deepEqual(paths(mine.list), ['e-top/e-inner', 'e-top']);
      await gantry.api('DELETE', `/groups/${top.id}`);
    });

    it('all_available=false limits users to their memberships', async () => {
      const mine = await gantry.api('GET', '/groups?all_available=false', { token: bob.token });
      assert.deepEqual(paths(mine.list), ['d-bobs', 'c-private']);
      const all = await gantry.api('GET', '/groups?all_available=true', { token: bob.token });
      assert.equal(all.list.length, 5);
    });

    it('owned=true lists the groups the caller owns', async () => {
      assert.deepEqual(paths((await gantry.api('GET', '/groups?owned=true', { token: bob.token })).list), ['d-bobs']);
      assert.deepEqual(paths((await gantry.api('GET', '/groups?owned=true', { token: outsider.token })).list), []);
      assert.deepEqual(paths((await gantry.api('GET', '/groups?owned=true', { token: null })).list), []);
    });

    it('min_access_level keeps the groups where the caller is a member at that level or higher, with their subgroups', async () => {
      assert.deepEqual(paths((await gantry.api('GET', '/groups?min_access_level=40', { token: bob.token })).list), ['d-bobs']);
      assert.deepEqual(paths((await gantry.api('GET', '/groups?min_access_level=30&all_available=true', { token: bob.token })).list), ['d-bobs', 'c-private']);
      assert.deepEqual(paths((await gantry.api('GET', '/groups?min_access_level=50&order_by=path', { token: alice.token })).list), ['a-public', 'b-internal', 'c-private', 'a-public/sub', 'a-public/sub-private']);
      assert.deepEqual(paths((await gantry.api('GET', '/groups?min_access_level=10', { token: outsider.token })).list), []);
      assert.equal((await gantry.api('GET', '/groups?min_access_level=10', { token: null })).list.length, 2, 'ignored without a caller');
      const invalid = await gantry.api('GET', '/groups?min_access_level=35', { token: bob.token });
      assert.deepEqual([invalid.status, invalid.body], [400, { error: 'min_access_level does not have a valid value' }]);
    });

    it('orders by name or path, ascending or descending', async () => {
      const byPath = await gantry.api('GET', '/groups?order_by=path', { token: null });
      assert.deepEqual(paths(byPath.list), ['a-public', 'a-public/sub']);
      const byNameDesc = await gantry.api('GET', '/groups?all_available=true&order_by=name&sort=desc', { token: outsider.token });
      assert.deepEqual(paths(byNameDesc.list), ['a-public', 'b-internal', 'a-public/sub']);
    });

    it('searches name and path, case-insensitively, with wildcards taken literally', async () => {
      assert.deepEqual(paths((await gantry.api('GET', '/groups?all_available=true&search=YANK', { token: outsider.token })).list), ['b-internal']);
      assert.deepEqual(paths((await gantry.api('GET', '/groups?all_available=true&search=internal', { token: outsider.token })).list), ['b-internal']);
      assert.deepEqual((await gantry.api('GET', '/groups?all_available=true&search=%25', { token: outsider.token })).list, []);
    });

    it('skips the groups in skip_groups[]', async () => {
      const response = await gantry.api('GET', `/groups?all_available=true&skip_groups[]=${ids.pub}&skip_groups[]=${ids.int}`, { token: outsider.token });
      assert.deepEqual(paths(response.list), ['a-public/sub']);
    });

    it('adds statistics for administrators only', async () => {
      const admin = await gantry.api('GET', '/groups?statistics=true&search=zulu');
      assert.deepEqual(admin.list[0]?.statistics, { storage_size: 0, repository_size: 0, lfs_objects_size: 0, job_artifacts_size: 0 });
      const user = await gantry.api('GET', '/groups?all_available=true&statistics=true&search=zulu', { token: outsider.token });
      assert.equal(user.list.length, 1);
      assert.equal('statistics' in (user.list[0] ?? {}), false);
      assert.equal('statistics' in ((await gantry.api('GET', '/groups?search=zulu')).list[0] ?? {}), false);
    });

    it('sums the repositories of the group and its subgroups into its statistics', async () => {
      const top = await makeGroup(gantry, 'f-sized', { name: 'Sized' });
      const inner = await makeGroup(gantry, 'f-inner', { parentId: top.id });
      const sizes: number[] = [];
      for (const [namespace, name] of [[top.id, 'one'], [inner.id, 'two']] as const) {
        const project = await makeProjectWithRepository(gantry, namespace, name, { withReadme: true });
        const statistics = (await gantry.api('GET', `/projects/${project.id}?statistics=true`)).json.statistics as { repository_size: number };
        assert.ok(statistics.repository_size > 0);
        sizes.push(statistics.repository_size);
      }
      const listed = await gantry.api('GET', '/groups?statistics=true&search=sized');
      const total = sizes[0]! + sizes[1]!;
      assert.deepEqual(listed.list[0]?.statistics, { storage_size: total, repository_size: total, lfs_objects_size: 0, job_artifacts_size: 0 });
      await gantry.api('DELETE', `/groups/${top.id}`);
    });

    it('filters by custom attributes for administrators only', async () => {
      await gantry.api('PUT', `/groups/${ids.int}/custom_attributes/team`, { body: { value: 'red' } });
      const admin = await gantry.api('GET', '/groups?custom_attributes[team]=red');
      assert.deepEqual(paths(admin.list), ['b-internal']);
      const user = await gantry.api('GET', '/groups?all_available=true&custom_attributes[team]=red', { token: outsider.token });
      assert.equal(user.list.length, 3, 'ignored for non-administrators');
    });

    it('answers 400 for malformed parameters and 401 for a wrong token', async () => {
      const cases: Array<[string, unknown]> = [
        ['order_by=id', { error: 'order_by does not have a valid value' }],
        ['sort=up', { error: 'sort does not have a valid value' }],
        ['skip_groups[]=abc', { error: 'skip_groups is invalid' }],
        ['owned=maybe', { error: 'owned is invalid' }],
        ['page=x', { error: 'page is invalid' }],
      ];
      for (const [query, body] of cases) {
        const response = await gantry.api('GET', `/groups?${query}`);
        assert.equal(response.status, 400, query);
        assert.deepEqual(response.body, body);
      }
      assert.equal((await gantry.api('GET', '/groups', { token: 'nope' })).status, 401);
    });

    it('paginates with headers', async () => {
      const first = await gantry.api('GET', '/groups?per_page=4&order_by=path');
      // order_by=path sorts on the group's own path, not its full path.
      assert.deepEqual(paths(first.list), ['a-public', 'b-internal', 'c-private', 'd-bobs']);
      assert.equal(first.headers['x-total'], '6');
      assert.equal(first.headers['x-total-pages'], '2');
      assert.equal(first.headers['x-per-page'], '4');
      assert.equal(first.headers['x-page'], '1');
      assert.equal(first.headers['x-next-page'], '2');
      assert.equal(first.headers['x-prev-page'], '');
      assert.match(String(first.headers.link), /<http:\/\/localhost\/api\/v4\/groups\?[^>]*page=2[^>]*>; rel="next"/);
      // Reached through the external URL's host, links keep the external URL.
      const external = await gantry.api('GET', '/groups?per_page=4', { headers: { host: 'gantry.test' } });
      assert.match(String(external.headers.link), /<http:\/\/gantry\.test\/api\/v4\/groups\?[^>]*page=2[^>]*>; rel="next"/);
      const second = await gantry.api('GET', '/groups?per_page=4&page=2&order_by=path');
      assert.deepEqual(paths(second.list), ['a-public/sub', 'a-public/sub-private']);
      assert.equal(second.headers['x-next-page'], '');
      assert.equal(second.headers['x-prev-page'], '1');
    });
  });

  describe('GET /groups/:id/subgroups', () => {
    it('lists the direct subgroups the caller can see', async () => {
      assert.deepEqual(paths((await gantry.api('GET', `/groups/${ids.pub}/subgroups`, { token: null })).list), ['a-public/sub']);
      assert.deepEqual(paths((await gantry.api('GET', `/groups/${ids.pub}/subgroups`, { token: alice.token })).list), ['a-public/sub-private', 'a-public/sub']);
      const deeper = await makeGroup(gantry, 'deeper', { parentId: ids.sub, visibility: 'public' });
      const direct = await gantry.api('GET', '/groups/a-public/subgroups?order_by=path', { token: null });
      assert.equal(direct.list.some((group) => group.id === deeper.id), false, 'grandchildren are not direct subgroups');
      assert.equal(direct.headers['x-total'], '1');
      assert.deepEqual(paths((await gantry.api('GET', `/groups/${ids.pub}/subgroups`, { token: outsider.token })).list), [], 'a non-member lists none by default');
      assert.deepEqual(paths((await gantry.api('GET', `/groups/${ids.pub}/subgroups?all_available=true`, { token: outsider.token })).list), ['a-public/sub']);
    });

    it('takes the list parameters', async () => {
      const searched = await gantry.api('GET', `/groups/${ids.pub}/subgroups?search=secret`, { token: alice.token });
      assert.deepEqual(paths(searched.list), ['a-public/sub-private']);
      const skipped = await gantry.api('GET', `/groups/${ids.pub}/subgroups?skip_groups[]=${ids.sub}`, { token: alice.token });
      assert.deepEqual(paths(skipped.list), ['a-public/sub-private']);
      assert.equal((await gantry.api('GET', `/groups/${ids.pub}/subgroups?sort=sideways`)).status, 400);
    });

    it('answers 404 for a private parent the caller cannot read and for unknown groups', async () => {
      const hidden = await gantry.api('GET', `/groups/${ids.priv}/subgroups`, { token: outsider.token });
      assert.deepEqual([hidden.status, hidden.body], [404, { message: '404 Group Not Found' }]);
      assert.equal((await gantry.api('GET', '/groups/999999/subgroups')).status, 404);
    });
  });

  describe('GET /groups/:id/projects', () => {
    let group: { id: number };
    const projectIds: Record<string, number> = {};

    before(async () => {
      group = await makeGroup(gantry, 'with-projects', { token: alice.token, visibility: 'public' });
      projectIds.old = (await makeProject(gantry, group.id, 'oldest', { visibility: 'public', createdAt: '2020-01-01T00:00:00.000Z' })).id;
      projectIds.mid = (await makeProject(gantry, group.id, 'middle', { visibility: 'internal', createdAt: '2021-01-01T00:00:00.000Z', archived: true })).id;
      projectIds.new = (await makeProject(gantry, group.id, 'newest', { visibility: 'private', createdAt: '2022-01-01T00:00:00.000Z' })).id;
      const other = await makeGroup(gantry, 'sharer', { visibility: 'public' });
      projectIds.shared = (await makeProject(gantry, other.id, 'shared-in', { visibility: 'public', createdAt: '2019-01-01T00:00:00.000Z' })).id;
      await gantry.coordinator.context.db
        .insertInto('project_group_links')
        .values({ project_id: projectIds.shared, group_id: group.id, group_access: 30, expires_at: null, created_at: new Date().toISOString() })
        .execute();
    });

    const names = (rows: Array<Record<string, unknown>>) => rows.map((row) => row.path);

    it('lists visible projects of the group and those shared with it, newest first', async () => {
      assert.deepEqual(names((await gantry.api('GET', `/groups/${group.id}/projects`, { token: null })).list), ['oldest', 'shared-in']);
      assert.deepEqual(names((await gantry.api('GET', `/groups/${group.id}/projects`, { token: outsider.token })).list), ['middle', 'oldest', 'shared-in']);
      assert.deepEqual(names((await gantry.api('GET', `/groups/${group.id}/projects`, { token: alice.token })).list), ['newest', 'middle', 'oldest', 'shared-in']);
    });

    it('filters and orders', async () => {
      const base = `/groups/${group.id}/projects`;
      assert.deepEqual(names((await gantry.api('GET', `${base}?archived=true`, { token: alice.token })).list), ['middle']);
      assert.deepEqual(names((await gantry.api('GET', `${base}?archived=false&visibility=public`, { token: alice.token })).list), ['oldest', 'shared-in']);
      assert.deepEqual(names((await gantry.api('GET', `${base}?search=EST`, { token: alice.token })).list), ['newest', 'oldest']);
      assert.deepEqual(names((await gantry.api('GET', `${base}?order_by=path&sort=asc`, { token: alice.token })).list), ['middle', 'newest', 'oldest', 'shared-in']);
      assert.deepEqual(names((await gantry.api('GET', `${base}?owned=true`, { token: alice.token })).list), ['newest', 'middle', 'oldest']);
      assert.deepEqual((await gantry.api('GET', `${base}?owned=true`, { token: outsider.token })).list, []);
      await gantry.coordinator.context.db.insertInto('stars').values({ user_id: outsider.id, project_id: projectIds.old, created_at: new Date().toISOString() }).execute();
      assert.deepEqual(names((await gantry.api('GET', `${base}?starred=true`, { token: outsider.token })).list), ['oldest']);
      assert.deepEqual((await gantry.api('GET', `${base}?starred=true`, { token: null })).list, []);
    });

    it('takes include_subgroups, with_shared, feature, topic and min_access_level filters, as GitLab (Renovate autodiscovers with them)', async () => {
      const base = `/groups/${group.id}/projects`;
      const sub = await makeGroup(gantry, 'below', { token: alice.token, visibility: 'public', parentId: group.id });
      const deep = await makeProject(gantry, sub.id, 'deep', { visibility: 'public', createdAt: '2023-01-01T00:00:00.000Z' });
      const carol = await makeUser(gantry, 'carol');
      await addMember(gantry, { type: 'project', id: projectIds.old! }, carol.id, 30);
      await addMember(gantry, { type: 'project', id: deep.id }, carol.id, 20);
      try {
        assert.deepEqual(names((await gantry.api('GET', base, { token: alice.token })).list), ['newest', 'middle', 'oldest', 'shared-in']);
        assert.deepEqual(names((await gantry.api('GET', `${base}?include_subgroups=true`, { token: alice.token })).list), ['deep', 'newest', 'middle', 'oldest', 'shared-in']);
        assert.deepEqual(names((await gantry.api('GET', `${base}?include_subgroups=true&with_shared=false`, { token: alice.token })).list), ['deep', 'newest', 'middle', 'oldest']);
        assert.deepEqual(names((await gantry.api('GET', `${base}?include_subgroups=true&min_access_level=20`, { token: carol.token })).list), ['deep', 'oldest']);
        assert.deepEqual(names((await gantry.api('GET', `${base}?include_subgroups=true&min_access_level=30`, { token: carol.token })).list), ['oldest']);
        assert.deepEqual((await gantry.api('GET', `${base}?min_access_level=10`, { token: null })).list, []);
        assert.equal((await gantry.api('PUT', `/projects/${projectIds.new}`, { body: { topics: 'bots,deps' } })).status, 200);
        assert.equal((await gantry.api('PUT', `/projects/${projectIds.mid}`, { body: { merge_requests_access_level: 'disabled', topics: 'deps' } })).status, 200);
        assert.deepEqual(names((await gantry.api('GET', `${base}?topic=deps`, { token: alice.token })).list), ['newest', 'middle']);
        assert.deepEqual(names((await gantry.api('GET', `${base}?topic=deps,bots`, { token: alice.token })).list), ['newest']);
        assert.deepEqual(names((await gantry.api('GET', `${base}?topic=deps&with_merge_requests_enabled=true`, { token: alice.token })).list), ['newest']);
        assert.equal((await gantry.api('PUT', `/projects/${projectIds.new}`, { body: { issues_access_level: 'disabled' } })).status, 200);
        assert.deepEqual(names((await gantry.api('GET', `${base}?topic=deps&with_issues_enabled=true`, { token: alice.token })).list), ['middle']);
        assert.equal((await gantry.api('GET', `${base}?include_subgroups=maybe`)).status, 400);
        assert.equal((await gantry.api('GET', `${base}?min_access_level=35`)).status, 400);
      } finally {
        await gantry.api('PUT', `/projects/${projectIds.new}`, { body: { topics: '', issues_access_level: 'enabled' } });
        await gantry.api('PUT', `/projects/${projectIds.mid}`, { body: { topics: '', merge_requests_access_level: 'enabled' } });
        await gantry.api('DELETE', `/projects/${deep.id}`);
      }
    });

    it('paginates with headers', async () => {
      const page = await gantry.api('GET', `/groups/${group.id}/projects?per_page=3&page=2`, { token: alice.token });
      assert.deepEqual(names(page.list), ['shared-in']);
      assert.equal(page.headers['x-total'], '4');
      assert.equal(page.headers['x-total-pages'], '2');
      assert.equal(page.headers['x-prev-page'], '1');
    });

    it('answers 400 for malformed parameters and 404 for unreadable groups', async () => {
      for (const query of ['order_by=stars', 'visibility=everyone', 'archived=perhaps', 'sort=random']) {
        assert.equal((await gantry.api('GET', `/groups/${group.id}/projects?${query}`)).status, 400, query);
      }
      const hidden = await gantry.api('GET', `/groups/${ids.priv}/projects`, { token: outsider.token });
      assert.deepEqual([hidden.status, hidden.body], [404, { message: '404 Group Not Found' }]);
      assert.equal((await gantry.api('GET', `/groups/${ids.priv}/projects`, { token: null })).status, 404);
    });
  });
});
