import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

describe('sharing a group with a group', () => {
  let gantry: TestCoordinator;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let home: number;
  let team: number;
  let appId: number;
  let libId: number;

  before(async () => {
    gantry = await startTestCoordinator();
    alice = await makeUser(gantry, 'alice');
    bob = await makeUser(gantry, 'bob');
    carol = await makeUser(gantry, 'carol');
    home = (await makeGroup(gantry, 'home', { token: alice.token })).id;
    const sub = (await makeGroup(gantry, 'sub', { parentId: home, token: alice.token })).id;
    appId = (await makeProjectWithRepository(gantry, home, 'app', { withReadme: true })).id;
    libId = (await makeProjectWithRepository(gantry, sub, 'lib', { withReadme: true })).id;
    team = (await makeGroup(gantry, 'team')).id;
    await addMember(gantry, { type: 'namespace', id: team }, bob.id, 30);
  });
  after(() => gantry.close());

  const share = (body: Record<string, unknown>, token = alice.token) => gantry.api('POST', `/groups/${home}/share`, { body, token });

  it('refuses bad requests: unseen group, non-owner, itself, bad level', async () => {
    assert.deepEqual((await share({ group_id: team, group_access: 20 })).body, { message: '404 Group Not Found' }, 'alice cannot see the private team');
    await addMember(gantry, { type: 'namespace', id: team }, alice.id, 10);
    assert.equal((await share({ group_id: team, group_access: 20 }, bob.token)).status, 404, 'bob cannot see home yet');
    await addMember(gantry, { type: 'namespace', id: home }, carol.id, 40);
    assert.equal((await share({ group_id: team, group_access: 20 }, carol.token)).status, 403, 'a maintainer is not an owner');
    assert.deepEqual((await share({ group_id: home, group_access: 20 })).body, { message: 'A group cannot be shared with itself' });
    assert.deepEqual((await share({ group_id: team, group_access: 25 })).body, { error: 'group_access does not have a valid value' });
    assert.deepEqual((await share({ group_access: 20 })).body, { error: 'group_id is missing' });
  });

  it('gives the invited members the lower of both levels in the group, its subgroups and projects', async () => {
    const created = await share({ group_id: team, group_access: 20, expires_at: '2099-01-01' });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.shared_with_groups, [{ group_id: team, group_name: 'team', group_full_path: 'team', group_access_level: 20, expires_at: '2099-01-01' }]);
    assert.equal((await gantry.api('GET', `/groups/${home}`, { token: bob.token })).status, 200);
    const groups = await gantry.api('GET', '/groups?all_available=false&order_by=path', { token: bob.token });
    assert.deepEqual(groups.list.map((group) => group.full_path), ['home', 'home/sub', 'team']);
    const projects = await gantry.api('GET', '/projects?membership=true&order_by=path&sort=asc', { token: bob.token });
    assert.deepEqual(projects.list.map((project) => project.path_with_namespace), ['home/app', 'home/sub/lib']);
    const file = await gantry.api('GET', `/projects/${libId}/repository/files/README.md?ref=main`, { token: bob.token });
    assert.equal(file.status, 200, 'a reporter through the share reads code');
    const branch = await gantry.api('POST', `/projects/${appId}/repository/branches`, { token: bob.token, body: { branch: 'x', ref: 'main' } });
    assert.equal(branch.status, 403, 'a developer of team is only a reporter in home');
    assert.equal((await share({ group_id: team, group_access: 30 })).status, 409);
  });

  it('takes the access away when the share is removed', async () => {
    assert.equal((await gantry.api('DELETE', `/groups/${home}/share/${team}`, { token: bob.token })).status, 403);
    assert.equal((await gantry.api('DELETE', `/groups/${home}/share/${team}`, { token: alice.token })).status, 204);
    assert.equal((await gantry.api('GET', `/projects/${appId}`, { token: bob.token })).status, 404);
    assert.equal((await gantry.api('GET', `/groups/${home}`, { token: bob.token })).status, 404);
    assert.deepEqual((await gantry.api('DELETE', `/groups/${home}/share/${team}`, { token: alice.token })).body, { message: '404 Group Link Not Found' });
  });
});
