import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup, makeProject } from './groups-fixtures.ts';

describe('users administration', () => {
  let gantry: TestCoordinator;
  let alice: { id: number; username: string; token: string };

  before(async () => {
    gantry = await startTestCoordinator();
    alice = await gantry.createUser('alice');
  });
  after(() => gantry.close());

  describe('PUT /users/:id', () => {
    it('changes profile fields and renames the personal namespace', async () => {
      const user = await gantry.createUser('carol');
      const updated = await gantry.api('PUT', `/users/${user.id}`, {
        body: { name: 'Carol C', username: 'carol2', bio: 'new bio', projects_limit: 3, admin: true, external: true },
      });
      assert.equal(updated.status, 200);
      assert.equal(updated.json.name, 'Carol C');
      assert.equal(updated.json.username, 'carol2');
      assert.equal(updated.json.bio, 'new bio');
      assert.equal(updated.json.projects_limit, 3);
      assert.equal(updated.json.is_admin, true);
      assert.equal(updated.json.external, true);
      const namespace = await gantry.coordinator.context.stores.namespaces.findUserNamespace(user.id);
      assert.equal(namespace?.full_path, 'carol2');
      assert.equal((await gantry.api('GET', `/users/${user.id}`)).json.username, 'carol2');
    });

    it('answers 404 for a taken e-mail address or username and for unknown users', async () => {
      const user = await gantry.createUser('dave');
      const email = await gantry.api('PUT', `/users/${user.id}`, { body: { email: 'alice@example.com' } });
      assert.equal(email.status, 404);
      assert.deepEqual(email.json, { message: 'Email has already been taken' });
      const username = await gantry.api('PUT', `/users/${user.id}`, { body: { username: 'ALICE' } });
      assert.equal(username.status, 404);
      const own = await gantry.api('PUT', `/users/${user.id}`, { body: { email: 'dave@example.com', username: 'Dave' } });
      assert.equal(own.status, 200);
      assert.equal((await gantry.api('PUT', '/users/999999', { body: { name: 'x' } })).status, 404);
    });

    it('refuses a username that a group already uses as its path', async () => {
      await makeGroup(gantry, 'taken-path');
      const created = await gantry.api('POST', '/users', {
        body: { username: 'taken-path', name: 'T', email: 'taken@example.com', password: 'long-enough-1' },
      });
      assert.equal(created.status, 400);
      assert.deepEqual(created.json, { message: { username: ['has already been taken'] } });
      const renamed = await gantry.api('PUT', `/users/${alice.id}`, { body: { username: 'taken-path' } });
      assert.equal(renamed.status, 400);
    });

    it('validates and is for administrators only', async () => {
      const invalid = await gantry.api('PUT', `/users/${alice.id}`, { body: { email: 'nope', password: 'short' } });
      assert.equal(invalid.status, 400);
      assert.deepEqual(invalid.json, {
        message: { email: ['is invalid'], password: ['is too short (minimum is 8 characters)'] },
      });
      assert.equal((await gantry.api('PUT', `/users/${alice.id}`, { body: { projects_limit: 'x' } })).status, 400);
      assert.equal((await gantry.api('PUT', `/users/${alice.id}`, { token: alice.token, body: { name: 'x' } })).status, 403);
      assert.equal((await gantry.api('PUT', `/users/${alice.id}`, { token: null, body: { name: 'x' } })).status, 401);
    });
  });

  describe('block and unblock', () => {
    it('blocks, refuses the token, and unblocks', async () => {
      const user = await gantry.createUser('erin');
      const blocked = await gantry.api('POST', `/users/${user.id}/block`);
      assert.equal(blocked.status, 201);
      assert.equal(blocked.body, true);
      const again = await gantry.api('POST', `/users/${user.id}/block`);
      assert.equal(again.status, 201);
      assert.equal(again.text, 'null', 'GitLab 13 answers null for a user already blocked');
      assert.equal((await gantry.api('GET', `/users/${user.id}`)).json.state, 'blocked');
      assert.equal((await gantry.api('GET', '/user', { token: user.token })).status, 401);
      assert.deepEqual((await gantry.api('GET', '/users?blocked=true&search=erin')).list.map((u) => u.username), ['erin']);
      assert.deepEqual((await gantry.api('GET', '/users?active=true&search=erin')).list, []);

      const unblocked = await gantry.api('POST', `/users/${user.id}/unblock`);
      assert.equal(unblocked.status, 201);
      assert.equal(unblocked.body, true);
      assert.equal((await gantry.api('POST', `/users/${user.id}/unblock`)).body, false);
      assert.equal((await gantry.api('GET', '/user', { token: user.token })).status, 200);
    });

    it('answers 404 for unknown users and 403 for non-administrators', async () => {
      assert.equal((await gantry.api('POST', '/users/999999/block')).status, 404);
      assert.equal((await gantry.api('POST', '/users/999999/unblock')).status, 404);
      assert.equal((await gantry.api('POST', `/users/${alice.id}/block`, { token: alice.token })).status, 403);
      assert.equal((await gantry.api('POST', `/users/${alice.id}/block`, { token: null })).status, 401);
    });

    it('refuses an administrator blocking themselves, who could not be unblocked', async () => {
      const self = (await gantry.api('GET', '/user')).json;
      const refused = await gantry.api('POST', `/users/${String(self.id)}/block`);
      assert.equal(refused.status, 403);
      assert.deepEqual(refused.json, { message: '403 Forbidden - The API initiating user cannot be blocked by the API' });
      assert.equal((await gantry.api('GET', '/user')).json.state, 'active');
    });
  });

  describe('DELETE /users/:id', () => {
    it('deletes the user and moves contributions to a ghost user', async () => {
      const user = await gantry.createUser('frank');
      const context = gantry.coordinator.context;
      const aliceNamespace = await context.stores.namespaces.findUserNamespace(alice.id);
      const project = await makeProject(gantry, aliceNamespace?.id ?? 0, 'shared-work');
      await context.stores.projects.update(project.id, { creator_id: user.id });
      const ownNamespace = await context.stores.namespaces.findUserNamespace(user.id);
      const personal = await makeProject(gantry, ownNamespace?.id ?? 0, 'personal');
      const removed = await gantry.api('DELETE', `/users/${user.id}`);
      assert.equal(removed.status, 204);
      assert.equal((await gantry.api('GET', `/users/${user.id}`)).status, 404);
      assert.equal((await gantry.api('GET', '/user', { token: user.token })).status, 401);
      const ghost = await context.stores.users.findByUsername('ghost');
      assert.equal(ghost?.is_ghost, true);
      assert.equal(ghost?.state, 'blocked');
      assert.equal((await context.stores.projects.findById(project.id))?.creator_id, ghost?.id);
      assert.equal(await context.stores.projects.findById(personal.id), undefined);
      assert.equal((await gantry.api('GET', '/users?username=ghost')).list.length, 0);

      const second = await gantry.createUser('grace');
      assert.equal((await gantry.api('DELETE', `/users/${second.id}`)).status, 204);
      assert.equal((await context.stores.users.findByUsername('ghost1')), undefined);
    });

    it('hard_delete deletes without a ghost, with the groups the user alone owns', async () => {
      const user = await gantry.createUser('heidi');
      const group = await makeGroup(gantry, 'heidi-group', { token: user.token });
      const shared = await makeGroup(gantry, 'heidi-shared', { token: user.token });
      await gantry.api('POST', `/groups/${shared.id}/members`, { body: { user_id: alice.id, access_level: 50 } });
      const refused = await gantry.api('DELETE', `/users/${user.id}`);
      assert.equal(refused.status, 409, 'the one owner of heidi-group goes only with hard_delete');
      assert.deepEqual(refused.json, { message: 'User cannot be removed while is the sole-owner of a group' });
      assert.equal((await gantry.api('GET', `/users/${user.id}`)).status, 200);
      assert.equal((await gantry.api('GET', `/groups/${group.id}`)).status, 200);
      assert.equal((await gantry.api('DELETE', `/users/${user.id}?hard_delete=true`)).status, 204);
      assert.equal((await gantry.api('GET', `/groups/${group.id}`)).status, 404);
      assert.equal((await gantry.api('GET', `/groups/${shared.id}`)).status, 200);
      assert.equal((await gantry.api('DELETE', `/users/${user.id}`)).status, 404);
      const missing = await gantry.api('DELETE', '/users/999999');
      assert.deepEqual(missing.json, { message: '404 User Not Found' });
      assert.equal((await gantry.api('DELETE', `/users/${alice.id}`, { token: alice.token })).status, 403);
    });
  });
});
