import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ROOT_TOKEN, startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProject, makeUser, type TestUser } from './groups-fixtures.ts';

const refused = (reason: string) => ({ message: `Failed to transfer project {:new_namespace=>[${JSON.stringify(reason)}]}` });

describe('PUT /projects/:id/transfer', () => {
  let gantry: TestCoordinator;
  let alice: TestUser;
  let bob: TestUser;
  let projectId: number;
  let aliceNamespace: number;
  let dest: number;

  before(async () => {
    gantry = await startTestCoordinator();
    alice = await makeUser(gantry, 'alice');
    bob = await makeUser(gantry, 'bob');
    const created = await gantry.api('POST', '/projects', { token: alice.token, body: { name: 'app', visibility: 'public', initialize_with_readme: true } });
    assert.equal(created.status, 201, created.text);
    projectId = Number(created.json.id);
    aliceNamespace = Number((created.json.namespace as { id: number }).id);
    await addMember(gantry, { type: 'project', id: projectId }, bob.id, 40);
    dest = (await makeGroup(gantry, 'dest', { visibility: 'private' })).id;
    await addMember(gantry, { type: 'namespace', id: dest }, alice.id, 40);
    await addMember(gantry, { type: 'namespace', id: (await makeGroup(gantry, 'dev-only')).id }, alice.id, 30);
    await makeGroup(gantry, 'hidden');
  });
  after(() => gantry.close());

  const transfer = (namespace: unknown, token = alice.token) =>
    gantry.api('PUT', `/projects/${projectId}/transfer`, { token, body: namespace === undefined ? {} : { namespace } });

  it('refuses non-owners, unknown or hidden namespaces and groups where the caller is below Maintainer', async () => {
    assert.equal((await transfer('dest', bob.token)).status, 403, 'a maintainer of the project is not its owner');
    assert.deepEqual((await transfer(undefined)).body, { error: 'namespace is missing' });
    assert.deepEqual((await transfer('hidden')).body, { message: '404 Namespace Not Found' });
    assert.deepEqual((await transfer('nowhere')).body, { message: '404 Namespace Not Found' });
    const devOnly = await transfer('dev-only');
    assert.equal(devOnly.status, 400);
    assert.deepEqual(devOnly.body, refused("You don't have permission to transfer this project."));
    assert.deepEqual((await transfer(aliceNamespace)).body, refused('Project is already in this namespace.'));
  });

  it('moves the project with its repository, narrowing its visibility to the group', async () => {
    const moved = await transfer('dest');
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.json.path_with_namespace, 'dest/app');
    assert.equal(moved.json.visibility, 'private');
    const readme = await gantry.api('GET', '/projects/dest%2Fapp/repository/files/README.md?ref=main', { token: alice.token });
    assert.equal(readme.status, 200);
    assert.equal((await gantry.api('GET', '/projects/alice%2Fapp', { token: alice.token })).status, 404);
    assert.equal((await transfer(String(aliceNamespace))).status, 403, 'a maintainer of the new group does not own the project');
    const back = await transfer(String(aliceNamespace), ROOT_TOKEN);
    assert.equal(back.json.path_with_namespace, 'alice/app', 'administrators move any project anywhere');
  });

  it('refuses a namespace holding a project of the same path', async () => {
    await makeProject(gantry, dest, 'app');
    assert.deepEqual((await transfer(dest)).body, refused('Project with same name or path in target namespace already exists'));
  });
});
