import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProject, makeUser, type TestUser } from './groups-fixtures.ts';

describe('projects API: listings and their filters', () => {
  let gantry: TestCoordinator;
  let member: TestUser;
  let outsider: TestUser;
  let external: TestUser;
  const ids: Record<string, number> = {};

  before(async () => {
    gantry = await startTestCoordinator();
    member = await makeUser(gantry, 'member');
    outsider = await makeUser(gantry, 'outsider');
    external = await makeUser(gantry, 'external', { external: true });
    const group = await makeGroup(gantry, 'corp', { visibility: 'public' });
    const team = await makeGroup(gantry, 'team', { visibility: 'private' });
    await addMember(gantry, { type: 'namespace', id: team.id }, member.id, 40);
    const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, minutes)).toISOString();
    ids.pub = (await makeProject(gantry, group.id, 'alpha-public', { visibility: 'public', createdAt: at(1) })).id;
    ids.int = (await makeProject(gantry, group.id, 'beta-internal', { visibility: 'internal', createdAt: at(2) })).id;
    ids.priv = (await makeProject(gantry, group.id, 'gamma-private', { visibility: 'private', createdAt: at(3) })).id;
    ids.team = (await makeProject(gantry, team.id, 'delta-team', { visibility: 'private', createdAt: at(4) })).id;
    ids.archived = (await makeProject(gantry, group.id, 'epsilon-archived', { visibility: 'public', archived: true, createdAt: at(5) })).id;
    await addMember(gantry, { type: 'project', id: ids.priv }, member.id, 20);
  });
  after(() => gantry.close());

  const listIds = async (query: string, token?: string | null) => {
    const response = await gantry.api('GET', `/projects${query}`, { token });
    assert.equal(response.status, 200, response.text);
    return response.list.map((project) => project.id as number);
  };

  it('shows anonymous callers public projects only, newest first', async () => {
    assert.deepEqual(await listIds('', null), [ids.archived, ids.pub]);
  });

  it('adds internal projects for signed-in users (not external ones) and member projects', async () => {
    assert.deepEqual(await listIds('', outsider.token), [ids.archived, ids.int, ids.pub]);
    assert.deepEqual(await listIds('', external.token), [ids.archived, ids.pub]);
    assert.deepEqual(await listIds('', member.token), [ids.archived, ids.team, ids.priv, ids.int, ids.pub]);
    assert.equal((await listIds('')).length, 5, 'administrators see everything');
  });

  it('answers an external user 404 for an internal project by id or path, as the listing hides it', async () => {
    assert.equal((await gantry.api('GET', `/projects/${ids.int}`, { token: outsider.token })).status, 200);
    assert.equal((await gantry.api('GET', `/projects/${ids.int}`, { token: external.token })).status, 404);
    assert.equal((await gantry.api('GET', `/projects/${encodeURIComponent('corp/beta-internal')}`, { token: external.token })).status, 404);
    assert.equal((await gantry.api('GET', `/projects/${ids.pub}`, { token: external.token })).status, 200);
  });

  it('filters by membership, min_access_level, visibility, archived and search', async () => {
    assert.deepEqual(await listIds('?membership=true', member.token), [ids.team, ids.priv]);
    assert.deepEqual(await listIds('?min_access_level=40', member.token), [ids.team]);
    assert.deepEqual(await listIds('?visibility=internal', member.token), [ids.int]);
    assert.deepEqual(await listIds('?archived=true', member.token), [ids.archived]);
    assert.deepEqual(await listIds('?archived=false&search=ALPHA', member.token), [ids.pub]);
    assert.deepEqual(await listIds('?search=team&search_namespaces=true', member.token), [ids.team]);
    assert.deepEqual(await listIds(`?id_after=${ids.int}&id_before=${ids.archived}`, member.token), [ids.team, ids.priv]);
    assert.deepEqual(await listIds('?owned=true', member.token), []);
    assert.deepEqual(await listIds('?membership=true', null), []);
  });

  it('filters by topic: every name of the comma list (or array), exactly, as GitLab (Renovate autodiscovers with it)', async () => {
    for (const [id, topics] of [[ids.pub, 'renovate, web'], [ids.int, 'renovate'], [ids.team, 'Renovate']] as const) {
      assert.equal((await gantry.api('PUT', `/projects/${id}`, { body: { topics } })).status, 200);
    }
    assert.deepEqual(await listIds('?topic=renovate', member.token), [ids.int, ids.pub]);
    assert.deepEqual(await listIds('?topic=renovate,web', member.token), [ids.pub]);
    assert.deepEqual(await listIds('?topic[]=web&topic[]=renovate', member.token), [ids.pub]);
    assert.deepEqual(await listIds('?topic=Renovate', member.token), [ids.team]);
    assert.deepEqual(await listIds('?topic=renov', member.token), []);
    assert.equal((await listIds('?topic=', member.token)).length, 5, 'a blank topic filters nothing');
    for (const id of [ids.pub, ids.int, ids.team]) await gantry.api('PUT', `/projects/${id}`, { body: { topics: '' } });
  });

  it('owned=true lists the projects the caller owns: their personal ones and those of groups they own, as GitLab', async () => {
    const boss = await makeUser(gantry, 'boss');
    await addMember(gantry, { type: 'namespace', id: (await gantry.api('GET', '/groups/team')).json.id as number }, boss.id, 50);
    const personal = await gantry.api('POST', '/projects', { token: boss.token, body: { name: 'bosses-own' } });
    assert.equal(personal.status, 201, personal.text);
    assert.deepEqual(await listIds('?owned=true', boss.token), [personal.json.id, ids.team]);
    assert.deepEqual(await listIds('?owned=true&search=delta', boss.token), [ids.team]);
    assert.deepEqual(await listIds('?owned=true', member.token), [], 'a Maintainer of the group owns none of its projects');
    await gantry.api('DELETE', `/projects/${personal.json.id}`);
  });

  it('orders by name, path or id in either direction', async () => {
    const names = async (query: string) => (await gantry.api('GET', `/projects${query}`)).list.map((project) => project.name);
    assert.deepEqual(await names('?order_by=name&sort=asc'), ['alpha-public', 'beta-internal', 'delta-team', 'epsilon-archived', 'gamma-private']);
    assert.deepEqual(await listIds('?order_by=id&sort=asc&per_page=2'), [ids.pub, ids.int]);
  });

  it('refuses bad parameter values with 400', async () => {
    for (const [query, error] of [
      ['?order_by=stars', 'order_by does not have a valid value'],
      ['?sort=up', 'sort does not have a valid value'],
      ['?visibility=secret', 'visibility does not have a valid value'],
      ['?archived=maybe', 'archived is invalid'],
      ['?min_access_level=35', 'min_access_level does not have a valid value'],
    ]) {
      const response = await gantry.api('GET', `/projects${query}`);
      assert.equal(response.status, 400, query);
      assert.deepEqual(response.json, { error }, query);
    }
    assert.equal((await gantry.api('GET', '/projects', { token: 'wrong' })).status, 401);
  });

  it('paginates with GitLab headers', async () => {
    const response = await gantry.api('GET', '/projects?per_page=2&page=2');
    assert.equal(response.headers['x-total'], '5');
    assert.equal(response.headers['x-total-pages'], '3');
    assert.equal(response.headers['x-next-page'], '3');
    assert.equal(response.headers['x-prev-page'], '1');
    assert.match(String(response.headers.link), /rel="next"/);
    assert.equal(response.list.length, 2);
  });

  it('renders the simple view with only the simple fields', async () => {
    const [project] = (await gantry.api('GET', '/projects?simple=true&per_page=1', { token: null })).list;
    assert.ok(project);
    assert.equal('permissions' in project, false);
    assert.equal('issues_enabled' in project, false);
    assert.equal(project.path_with_namespace, 'corp/epsilon-archived');
    assert.equal(typeof project.star_count, 'number');
  });

  it('filters by custom attributes for administrators and includes statistics when asked', async () => {
    await gantry.api('PUT', `/projects/${ids.int}/custom_attributes/tier`, { body: { value: 'gold' } });
    assert.deepEqual(await listIds('?custom_attributes[tier]=gold'), [ids.int]);
    const [withAttributes] = (await gantry.api('GET', '/projects?custom_attributes[tier]=gold&with_custom_attributes=true')).list;
    assert.deepEqual(withAttributes?.custom_attributes, [{ key: 'tier', value: 'gold' }]);
    const [withStatistics] = (await gantry.api('GET', `/projects?statistics=true&id_after=${ids.team}&id_before=${ids.archived}`)).list;
    assert.equal(withStatistics, undefined);
    const stats = (await gantry.api('GET', `/projects?statistics=true&visibility=internal`)).list[0]?.statistics as Record<string, number>;
    assert.equal(stats.commit_count, 0);
  });

  it('lists the projects of one user namespace', async () => {
    const created = await gantry.api('POST', '/projects', { body: { name: 'mine', visibility: 'public' }, token: member.token });
    assert.equal(created.status, 201);
    const response = await gantry.api('GET', `/users/${member.username}/projects`, { token: null });
    assert.deepEqual(response.list.map((project) => project.path_with_namespace), ['member/mine']);
    assert.equal((await gantry.api('GET', '/users/nobody-here/projects')).status, 404);
  });
});
