import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProject, makeUser, type TestUser } from './groups-fixtures.ts';

describe('members/all: direct and inherited members', () => {
  let gantry: TestCoordinator;
  let owner: TestUser;
  let carol: TestUser;
  let dave: TestUser;
  let outsider: TestUser;
  let parent: { id: number };
  let child: { id: number };
  let projectId: number;

  before(async () => {
    gantry = await startTestCoordinator();
    owner = await makeUser(gantry, 'owner');
    carol = await makeUser(gantry, 'carol', { name: 'Carol Singer' });
    dave = await makeUser(gantry, 'dave');
    outsider = await makeUser(gantry, 'outsider');
    parent = await makeGroup(gantry, 'parent', { token: owner.token });
    child = await makeGroup(gantry, 'child', { token: owner.token, parentId: parent.id });
    await addMember(gantry, { type: 'namespace', id: parent.id }, carol.id, 20);
    await addMember(gantry, { type: 'namespace', id: child.id }, dave.id, 30);
    const project = await makeProject(gantry, child.id, 'app');
    projectId = project.id;
    await addMember(gantry, { type: 'project', id: projectId }, carol.id, 40);
  });
  after(() => gantry.close());

  const levels = (list: Array<Record<string, unknown>>) => Object.fromEntries(list.map((member) => [member.username, member.access_level]));

  it('lists project members with those of every enclosing group, highest level per user', async () => {
    const direct = await gantry.api('GET', `/projects/${projectId}/members`, { token: owner.token });
    assert.deepEqual(levels(direct.list), { carol: 40 });
    const all = await gantry.api('GET', `/projects/${projectId}/members/all`, { token: owner.token });
    assert.equal(all.status, 200);
    assert.deepEqual(levels(all.list), { owner: 50, carol: 40, dave: 30 });
    assert.equal(all.headers['x-total'], '3');
  });

  it('lists a subgroup with its ancestors’ members, filtered and paginated', async () => {
    const all = await gantry.api('GET', `/groups/${child.id}/members/all`, { token: owner.token });
    assert.deepEqual(levels(all.list), { owner: 50, carol: 20, dave: 30 });
    const searched = await gantry.api('GET', `/groups/${child.id}/members/all?query=singer`, { token: owner.token });
    assert.deepEqual(levels(searched.list), { carol: 20 });
    const second = await gantry.api('GET', `/groups/${child.id}/members/all?per_page=2&page=2`, { token: owner.token });
    assert.equal(second.list.length, 1);
    assert.equal(second.headers['x-total-pages'], '2');
  });

  it('shows one inherited member; 404 for someone without access', async () => {
    const dave30 = await gantry.api('GET', `/projects/${projectId}/members/all/${dave.id}`, { token: owner.token });
    assert.equal(dave30.status, 200);
    assert.equal(dave30.json.access_level, 30);
    assert.equal((await gantry.api('GET', `/projects/${projectId}/members/${dave.id}`, { token: owner.token })).status, 404);
    const none = await gantry.api('GET', `/projects/${projectId}/members/all/${outsider.id}`, { token: owner.token });
    assert.deepEqual([none.status, none.json], [404, { message: '404 Member Not Found' }]);
  });

  it('counts the owner of a personal namespace, and hides private projects from outsiders', async () => {
    const created = await gantry.api('POST', '/projects', { token: owner.token, body: { name: 'mine' } });
    const all = await gantry.api('GET', `/projects/${created.json.id as number}/members/all`, { token: owner.token });
    assert.deepEqual(levels(all.list), { owner: 50 });
    const hidden = await gantry.api('GET', `/projects/${projectId}/members/all`, { token: outsider.token });
    assert.equal(hidden.status, 404);
  });
});
