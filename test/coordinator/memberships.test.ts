import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProject, makeUser, type TestUser } from './groups-fixtures.ts';

describe('project users and user memberships', () => {
  let gantry: TestCoordinator;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let dave: TestUser;
  let projectId: number;
  let groupId: number;

  before(async () => {
    gantry = await startTestCoordinator();
    // One after another: the lists below are in id order.
    alice = await makeUser(gantry, 'alice');
    bob = await makeUser(gantry, 'bob');
    carol = await makeUser(gantry, 'carol');
    dave = await makeUser(gantry, 'dave');
    groupId = (await makeGroup(gantry, 'home', { name: 'Home', token: alice.token })).id;
    const team = (await makeGroup(gantry, 'team')).id;
    projectId = (await makeProject(gantry, groupId, 'app')).id;
    await addMember(gantry, { type: 'project', id: projectId }, bob.id, 20);
    await addMember(gantry, { type: 'namespace', id: team }, carol.id, 30);
    const shared = await gantry.api('POST', `/projects/${projectId}/share`, { body: { group_id: team, group_access: 20 } });
    assert.equal(shared.status, 201, shared.text);
  });
  after(() => gantry.close());

  it('lists everyone with access through membership, enclosing groups and shares', async () => {
    const users = await gantry.api('GET', `/projects/${projectId}/users`, { token: bob.token });
    assert.equal(users.status, 200);
    assert.deepEqual(users.list.map((user) => user.username), ['root', 'alice', 'bob', 'carol']);
    assert.deepEqual(Object.keys(users.list[1]!), ['id', 'name', 'username', 'state', 'avatar_url', 'web_url']);
    assert.deepEqual((await gantry.api('GET', `/projects/${projectId}/users?search=CAR`)).list.map((user) => user.username), ['carol']);
    const skipped = await gantry.api('GET', `/projects/${projectId}/users?skip_users[]=${bob.id}&skip_users[]=1&per_page=1`);
    assert.deepEqual(skipped.list.map((user) => user.username), ['alice']);
    assert.equal(skipped.headers['x-total'], '2');
    assert.equal((await gantry.api('GET', `/projects/${projectId}/users`, { token: dave.token })).status, 404);
    assert.equal((await gantry.api('GET', `/projects/${projectId}/users?skip_users[]=x`)).status, 400);
  });

  it('lists the direct memberships of a user for administrators', async () => {
    const alices = await gantry.api('GET', `/users/${alice.id}/memberships`);
    assert.deepEqual(alices.list, [{ source_id: groupId, source_name: 'Home', source_type: 'Namespace', access_level: 50 }]);
    const bobs = await gantry.api('GET', `/users/${bob.username}/memberships?type=Project`);
    assert.deepEqual(bobs.list, [{ source_id: projectId, source_name: 'Home / app', source_type: 'Project', access_level: 20 }]);
    assert.deepEqual((await gantry.api('GET', `/users/${bob.id}/memberships?type=Namespace`)).list, []);
    assert.equal((await gantry.api('GET', `/users/${bob.id}/memberships?type=Group`)).status, 400);
    assert.equal((await gantry.api('GET', `/users/${bob.id}/memberships`, { token: bob.token })).status, 403);
    assert.deepEqual((await gantry.api('GET', '/users/99999/memberships')).body, { message: '404 User Not Found' });
  });
});
