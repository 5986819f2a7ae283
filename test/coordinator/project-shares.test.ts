import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

describe('sharing a project with a group', () => {
  let gantry: TestCoordinator;
  let alice: TestUser;
  let bob: TestUser;
  let home: number;
  let team: number;
  let projectId: number;

  before(async () => {
    gantry = await startTestCoordinator();
    alice = await makeUser(gantry, 'alice');
    bob = await makeUser(gantry, 'bob');
    home = (await makeGroup(gantry, 'home', { token: alice.token })).id;
    team = (await makeGroup(gantry, 'team')).id;
    await addMember(gantry, { type: 'namespace', id: team }, bob.id, 30);
    projectId = (await makeProjectWithRepository(gantry, home, 'app', { withReadme: true })).id;
  });
  after(() => gantry.close());

  const share = (body: Record<string, unknown>, token = alice.token) => gantry.api('POST', `/projects/${projectId}/share`, { body, token });

  it('refuses a group the caller cannot see, callers who do not administer the project, and bad parameters', async () => {
    assert.deepEqual((await share({ group_id: team, group_access: 20 })).body, { message: '404 Group Not Found' });
    await addMember(gantry, { type: 'namespace', id: team }, alice.id, 10);
    assert.equal((await share({ group_id: team, group_access: 20 }, bob.token)).status, 404, 'bob cannot read the project yet');
    assert.deepEqual((await share({ group_access: 20 })).body, { error: 'group_id is missing' });
    assert.deepEqual((await share({ group_id: team, group_access: 50 })).body, { error: 'group_access does not have a valid value' });
    assert.equal((await share({ group_id: team, group_access: 20, expires_at: 'soon' })).status, 400);
    assert.equal((await share({ group_id: 'x', group_access: 20 })).status, 400);
    const ownGroup = await share({ group_id: home, group_access: 20 });
    assert.equal(ownGroup.status, 409);
    assert.deepEqual(ownGroup.body, { message: 'Project cannot be shared with the group it is in or one of its ancestors.' });
  });

  it('grants the group members the lower of their level and the share level', async () => {
    assert.equal((await gantry.api('GET', `/projects/${projectId}`, { token: bob.token })).status, 404);
    const created = await share({ group_id: team, group_access: 20, expires_at: '2099-01-31' });
    assert.equal(created.status, 201);
    assert.deepEqual({ ...created.json, id: undefined }, { id: undefined, project_id: projectId, group_id: team, group_access: 20, expires_at: '2099-01-31' });
    const seen = await gantry.api('GET', `/projects/${projectId}`, { token: bob.token });
    assert.equal(seen.status, 200);
    assert.deepEqual(seen.json.shared_with_groups, [{ group_id: team, group_name: 'team', group_full_path: 'team', group_access_level: 20 }]);
    const branch = await gantry.api('POST', `/projects/${projectId}/repository/branches`, { token: bob.token, body: { branch: 'x', ref: 'main' } });
    assert.equal(branch.status, 403, 'a developer of the group is a reporter through a reporter share');
    assert.equal((await share({ group_id: team, group_access: 20 }, bob.token)).status, 403);
    const details = await gantry.api('GET', `/groups/${team}`, { token: bob.token });
    assert.deepEqual((details.json.shared_projects as Array<{ id: number }>).map((project) => project.id), [projectId]);
    const again = await share({ group_id: team, group_access: 30 });
    assert.equal(again.status, 409);
    assert.deepEqual(again.body, { message: 'Group already shared with this group' });
  });

  it('removes a share', async () => {
    assert.equal((await gantry.api('DELETE', `/projects/${projectId}/share/${team}`, { token: bob.token })).status, 403);
    assert.equal((await gantry.api('DELETE', `/projects/${projectId}/share/${team}`, { token: alice.token })).status, 204);
    assert.equal((await gantry.api('GET', `/projects/${projectId}`, { token: bob.token })).status, 404);
    const gone = await gantry.api('DELETE', `/projects/${projectId}/share/${team}`, { token: alice.token });
    assert.deepEqual([gone.status, gone.body], [404, { message: '404 Group Link Not Found' }]);
    assert.equal((await gantry.api('DELETE', `/projects/${projectId}/share/abc`, { token: alice.token })).status, 400);
  });
});
