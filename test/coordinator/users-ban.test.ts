import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

describe('POST /users/:id/ban and /unban', () => {
  let gantry: TestCoordinator;
  let bob: TestUser;

  before(async () => {
    gantry = await startTestCoordinator();
    bob = await makeUser(gantry, 'bob');
  });
  after(() => gantry.close());

  const gitRefs = async (path: string, user: TestUser) => {
    const authorization = `Basic ${Buffer.from(`${user.username}:${user.token}`).toString('base64')}`;
    return gantry.coordinator.app.inject({ method: 'GET', url: `/${path}.git/info/refs?service=git-upload-pack`, headers: { authorization } });
  };

  it('bans an active user: state banned, and neither the API nor git takes their token until unbanned', async () => {
    const carol = await makeUser(gantry, 'carol');
    const namespace = await gantry.coordinator.context.stores.namespaces.findUserNamespace(carol.id);
    await makeProjectWithRepository(gantry, namespace!.id, 'own', { withReadme: true });
    assert.equal((await gitRefs('carol/own', carol)).statusCode, 200);

    const banned = await gantry.api('POST', `/users/${carol.id}/ban`);
    assert.deepEqual([banned.status, banned.body], [201, true]);
    assert.equal((await gantry.api('GET', `/users/${carol.id}`)).json.state, 'banned');
    assert.equal((await gantry.api('GET', '/user', { token: carol.token })).status, 401);
    assert.equal((await gitRefs('carol/own', carol)).statusCode, 401);
    const again = await gantry.api('POST', `/users/${carol.id}/ban`);
    assert.deepEqual([again.status, again.json], [403, { message: 'You cannot ban banned users.' }]);
    const unblocked = await gantry.api('POST', `/users/${carol.id}/unblock`);
    assert.deepEqual([unblocked.status, unblocked.body], [201, false], 'unblock does not lift a ban');
    assert.equal((await gantry.api('GET', `/users/${carol.id}`)).json.state, 'banned');

    const unbanned = await gantry.api('POST', `/users/${carol.id}/unban`);
    assert.deepEqual([unbanned.status, unbanned.body], [201, true]);
    assert.equal((await gantry.api('GET', '/user', { token: carol.token })).json.state, 'active');
    assert.equal((await gitRefs('carol/own', carol)).statusCode, 200);
    const active = await gantry.api('POST', `/users/${carol.id}/unban`);
    assert.deepEqual([active.status, active.json], [403, { message: 'You cannot unban active users.' }]);
  });

  it('refuses to ban a blocked user; administrators only; unknown users 404', async () => {
    const dave = await makeUser(gantry, 'dave');
    assert.equal((await gantry.api('POST', `/users/${dave.id}/block`)).status, 201);
    const blocked = await gantry.api('POST', `/users/${dave.id}/ban`);
    assert.deepEqual([blocked.status, blocked.json], [403, { message: 'You cannot ban blocked users.' }]);
    assert.deepEqual((await gantry.api('POST', `/users/${dave.id}/ban`, { token: bob.token })).json, { message: '403 Forbidden' });
    assert.equal((await gantry.api('POST', `/users/${dave.id}/unban`, { token: bob.token })).status, 403);
    assert.equal((await gantry.api('POST', `/users/${dave.id}/ban`, { token: null })).status, 401);
    assert.deepEqual((await gantry.api('POST', '/users/999999/ban')).json, { message: '404 User Not Found' });
    assert.equal((await gantry.api('POST', '/users/999999/unban')).status, 404);
  });
});
