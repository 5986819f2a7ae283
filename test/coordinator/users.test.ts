import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

describe('users API', () => {
  let gantry: TestCoordinator;
  let alice: { id: number; username: string; token: string };

  before(async () => {
    gantry = await startTestCoordinator();
    alice = await gantry.createUser('alice');
  });
  after(() => gantry.close());

  const newUser = (username: string, extra: Record<string, unknown> = {}) => ({
    username,
    name: `Name ${username}`,
    email: `${username}@example.com`,
    password: 'long-enough-1',
    ...extra,
  });

  describe('POST /users', () => {
    it('creates a user with the administrator view and default projects limit', async () => {
      const created = await gantry.api('POST', '/users', {
        body: newUser('bob', { bio: 'hello', skip_confirmation: true, can_create_group: false }),
      });
      assert.equal(created.status, 201);
      const user = created.json;
      assert.equal(user.username, 'bob');
      assert.equal(user.email, 'bob@example.com');
      assert.equal(user.is_admin, false);
      assert.equal(user.projects_limit, 100000);
      assert.equal(user.can_create_group, false);
      assert.equal(user.can_create_project, true);
      assert.equal(user.bio, 'hello');
      assert.equal(user.state, 'active');
      assert.deepEqual(user.identities, []);
      assert.equal(user.web_url, 'http://gantry.test/bob');
      assert.match(String(user.confirmed_at), /^\d{4}-\d{2}-\d{2}T/);
    });

    it('takes projects_limit from the application settings', async () => {
      const changed = await gantry.api('PUT', '/application/settings', { body: { default_projects_limit: 7 } });
      assert.equal(changed.status, 200);
      const created = await gantry.api('POST', '/users', { body: newUser('limited', { admin: true }) });
      assert.equal(created.json.projects_limit, 7);
      assert.equal(created.json.is_admin, true);
      assert.equal(created.json.confirmed_at, null);
      await gantry.api('PUT', '/application/settings', { body: { default_projects_limit: 100000 } });
    });

    it('requires email, name and username', async () => {
      const missing = await gantry.api('POST', '/users', { body: { username: 'x', name: 'X', password: 'long-enough-1' } });
      assert.equal(missing.status, 400);
      assert.deepEqual(missing.json, { error: 'email is missing' });
      const several = await gantry.api('POST', '/users', { body: { password: 'long-enough-1' } });
      assert.deepEqual(several.json, { error: 'email is missing, name is missing, username is missing' });
    });

    it('requires password or reset_password', async () => {
      const { password: _password, ...withoutPassword } = newUser('nopass');
      const refused = await gantry.api('POST', '/users', { body: withoutPassword });
      assert.equal(refused.status, 400);
      assert.match(String(refused.json.error), /at least one parameter must be provided/);
      const reset = await gantry.api('POST', '/users', { body: { ...withoutPassword, reset_password: true } });
      assert.equal(reset.status, 201);
    });

    it('answers validation errors per field', async () => {
      const invalid = await gantry.api('POST', '/users', {
        body: newUser('-bad.', { email: 'not-an-email', password: 'short', projects_limit: -1 }),
      });
      assert.equal(invalid.status, 400);
      const message = invalid.json.message as Record<string, string[]>;
      assert.deepEqual(message.email, ['is invalid']);
      assert.match(message.username?.[0] ?? '', /can contain only letters/);
      assert.deepEqual(message.password, ['is too short (minimum is 8 characters)']);
      assert.deepEqual(message.projects_limit, ['must be greater than or equal to 0']);
      const mistyped = await gantry.api('POST', '/users', { body: newUser('typed', { projects_limit: 'many' }) });
      assert.equal(mistyped.status, 400);
      const badBool = await gantry.api('POST', '/users', { body: newUser('typed', { admin: 'maybe' }) });
      assert.equal(badBool.status, 400);
    });

    it('answers 409 for a taken e-mail address or username', async () => {
      const email = await gantry.api('POST', '/users', { body: newUser('other', { email: 'ALICE@example.com' }) });
      assert.equal(email.status, 409);
      assert.deepEqual(email.json, { message: 'Email has already been taken' });
      const username = await gantry.api('POST', '/users', { body: newUser('Alice', { email: 'fresh@example.com' }) });
      assert.equal(username.status, 409);
      assert.deepEqual(username.json, { message: 'Username has already been taken' });
    });

    it('is for administrators only', async () => {
      assert.equal((await gantry.api('POST', '/users', { body: newUser('nope'), token: null })).status, 401);
      assert.equal((await gantry.api('POST', '/users', { body: newUser('nope'), token: 'wrong' })).status, 401);
      assert.equal((await gantry.api('POST', '/users', { body: newUser('nope'), token: alice.token })).status, 403);
    });
  });

  describe('GET /users and /users/:id', () => {
    it('shows administrators the full view and others the public one', async () => {
      const asAdmin = await gantry.api('GET', '/users?username=alice');
      assert.equal(asAdmin.status, 200);
      assert.equal(asAdmin.list.length, 1);
      assert.equal(asAdmin.list[0]?.email, 'alice@example.com');
      assert.equal(asAdmin.headers['x-total'], '1');

      const anonymous = await gantry.api('GET', '/users?username=alice', { token: null });
      assert.deepEqual(Object.keys(anonymous.list[0] ?? {}).sort(), ['avatar_url', 'id', 'name', 'state', 'username', 'web_url']);

      const single = await gantry.api('GET', `/users/${alice.id}`, { token: alice.token });
      assert.equal(single.json.username, 'alice');
      assert.equal(single.json.email, undefined);
      assert.equal(typeof single.json.created_at, 'string');
      const singleAdmin = await gantry.api('GET', `/users/${alice.id}`);
      assert.equal(singleAdmin.json.email, 'alice@example.com');
    });

    it('filters, searches, orders and paginates', async () => {
      for (const name of ['zed1', 'zed2', 'zed3']) await gantry.createUser(name, { external: name === 'zed3' });
      const search = await gantry.api('GET', '/users?search=zed&order_by=username&sort=asc&per_page=2');
      assert.deepEqual(search.list.map((user) => user.username), ['zed1', 'zed2']);
      assert.equal(search.headers['x-total'], '3');
      assert.equal(search.headers['x-next-page'], '2');
      const external = await gantry.api('GET', '/users?search=zed&external=true');
      assert.deepEqual(external.list.map((user) => user.username), ['zed3']);
      const excluded = await gantry.api('GET', '/users?search=zed&exclude_external=true');
      assert.equal(excluded.list.length, 2);
      const externalAsUser = await gantry.api('GET', '/users?external=true', { token: alice.token });
      assert.equal(externalAsUser.status, 403);
      const admins = await gantry.api('GET', '/users?admins=true');
      assert.ok(admins.list.every((user) => user.is_admin === true));
      const zed1 = search.list[0]!;
      await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal((await gantry.api('PUT', `/users/${String(zed1.id)}`, { body: { bio: 'changed' } })).status, 200);
      const recent = await gantry.api('GET', '/users?search=zed&order_by=updated_at&sort=desc');
      assert.deepEqual(recent.list.map((user) => user.username), ['zed1', 'zed3', 'zed2'], 'the edited user first, then the newest');
      assert.equal((await gantry.api('GET', '/users?order_by=nonsense')).status, 400);
      assert.equal((await gantry.api('GET', '/users?created_before=notadate')).status, 400);
      const future = await gantry.api('GET', '/users?created_after=2999-01-01T00:00:00Z');
      assert.deepEqual(future.list, []);
    });

    it('filters by custom attributes for administrators', async () => {
      const zed = (await gantry.api('GET', '/users?username=zed2')).list[0];
      await gantry.api('PUT', `/users/${String(zed?.id)}/custom_attributes/team`, { body: { value: 'blue' } });
      const matching = await gantry.api('GET', '/users?custom_attributes[team]=blue');
      assert.deepEqual(matching.list.map((user) => user.username), ['zed2']);
    });

    it('requires sign-in when the public visibility level is restricted', async () => {
      await gantry.api('PUT', '/application/settings', { body: { restricted_visibility_levels: ['public'] } });
      try {
        assert.equal((await gantry.api('GET', '/users', { token: null })).status, 401);
        assert.equal((await gantry.api('GET', `/users/${alice.id}`, { token: null })).status, 401);
        assert.equal((await gantry.api('GET', '/users', { token: alice.token })).status, 200);
      } finally {
        await gantry.api('PUT', '/application/settings', { body: { restricted_visibility_levels: [] } });
      }
      assert.equal((await gantry.api('GET', '/users', { token: null })).status, 200);
    });

    it('answers 404 for unknown users', async () => {
      const missing = await gantry.api('GET', '/users/999999');
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.json, { message: '404 User Not Found' });
      assert.equal((await gantry.api('GET', '/users/not-a-number')).status, 404);
    });
  });

  describe('GET /user', () => {
    it('shows the current user, or the sudo target', async () => {
      const self = await gantry.api('GET', '/user', { token: alice.token });
      assert.equal(self.json.username, 'alice');
      assert.equal(self.json.email, 'alice@example.com');
      const sudo = await gantry.api('GET', '/user', { headers: { sudo: String(alice.id) } });
      assert.equal(sudo.json.id, alice.id);
      assert.equal((await gantry.api('GET', '/user', { token: null })).status, 401);
      assert.equal((await gantry.api('GET', '/user', { token: alice.token, headers: { sudo: '1' } })).status, 403);
    });

    it('names an unknown sudo target, repeating at most 200 characters of a long one', async () => {
      const unknown = await gantry.api('GET', '/user', { headers: { sudo: 'nobody-here' } });
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.json, { message: "404 User with ID or username 'nobody-here' Not Found" });
      const long = await gantry.api('GET', `/user?sudo=${'y'.repeat(100_000)}`);
      assert.equal(long.status, 404);
      assert.deepEqual(long.json, { message: `404 User with ID or username '${'y'.repeat(200)}…' Not Found` });
    });
  });
});
