import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Authenticator } from '../../src/coordinator/http/auth.ts';
import { isUniqueViolation } from '../../src/storage/errors.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeUser, type TestUser } from './groups-fixtures.ts';

describe('user e-mail addresses, identities and activities', () => {
  let gantry: TestCoordinator;
  let bob: TestUser;
  let carol: TestUser;

  before(async () => {
    gantry = await startTestCoordinator();
    bob = await makeUser(gantry, 'bob');
    carol = await makeUser(gantry, 'carol');
  });
  after(() => gantry.close());

  it('adds, lists, shows and removes the caller\'s own addresses (unconfirmed), paginated', async () => {
    const added = await gantry.api('POST', '/user/emails', { token: bob.token, body: { email: 'bob.other@example.com' } });
    assert.equal(added.status, 201, added.text);
    assert.deepEqual(Object.keys(added.json).sort(), ['confirmed_at', 'email', 'id']);
    assert.deepEqual([added.json.email, added.json.confirmed_at], ['bob.other@example.com', null]);
    const second = await gantry.api('POST', '/user/emails', { token: bob.token, body: { email: 'bob.third@example.com' } });
    const listed = await gantry.api('GET', '/user/emails?per_page=1&page=2', { token: bob.token });
    assert.deepEqual([listed.status, listed.headers['x-total'], listed.list], [200, '2', [second.json]]);
    assert.deepEqual((await gantry.api('GET', `/user/emails/${added.json.id}`, { token: bob.token })).json, added.json);
    // Carol cannot see Bob's address through her own list.
    assert.deepEqual((await gantry.api('GET', `/user/emails/${added.json.id}`, { token: carol.token })).json, { message: '404 Email Not Found' });
    assert.equal((await gantry.api('DELETE', `/user/emails/${added.json.id}`, { token: carol.token })).status, 404);
    assert.equal((await gantry.api('DELETE', `/user/emails/${added.json.id}`, { token: bob.token })).status, 204);
    assert.equal((await gantry.api('DELETE', `/user/emails/${added.json.id}`, { token: bob.token })).status, 404);
    assert.deepEqual((await gantry.api('GET', '/user/emails', { token: bob.token })).list, [second.json]);
  });

  it('keeps an address unique across primary and secondary addresses of every user, case-insensitively', async () => {
    const taken = { message: { email: ['has already been taken'] } };
    const primary = await gantry.api('POST', '/user/emails', { token: bob.token, body: { email: 'Carol@Example.com' } });
    assert.deepEqual([primary.status, primary.json], [400, taken]);
    const secondary = await gantry.api('POST', '/user/emails', { token: carol.token, body: { email: 'BOB.THIRD@example.com' } });
    assert.deepEqual([secondary.status, secondary.json], [400, taken]);
    const invalid = await gantry.api('POST', '/user/emails', { token: bob.token, body: { email: 'not an address' } });
    assert.deepEqual([invalid.status, invalid.json], [400, { message: { email: ['is invalid'] } }]);
    const long = await gantry.api('POST', '/user/emails', { token: bob.token, body: { email: `${'x'.repeat(250)}@example.com` } });
    assert.deepEqual([long.status, long.json], [400, { message: { email: ['is too long (maximum is 255 characters)'] } }]);
    assert.equal((await gantry.api('POST', '/user/emails', { token: bob.token, body: {} })).status, 400);
    assert.equal((await gantry.api('GET', '/user/emails/abc', { token: bob.token })).status, 400);
    assert.equal((await gantry.api('GET', '/user/emails', { token: null })).status, 401);
    assert.equal((await gantry.api('POST', '/user/emails', { token: null, body: { email: 'x@example.com' } })).status, 401);
  });

  it('enforces the uniqueness in the database too: the stores refuse an address any user has, whichever kind', async () => {
    const { users, userEmails } = gantry.coordinator.context.stores;
    const hank = await makeUser(gantry, 'hank');
    const now = new Date().toISOString();
    // The stores directly, past the services' checks (what two racing requests would reach).
    await userEmails.create({ user_id: hank.id, email: 'hank.work@example.com', confirmed_at: null, created_at: now });
    await assert.rejects(userEmails.create({ user_id: bob.id, email: 'HANK@example.com', confirmed_at: null, created_at: now }), isUniqueViolation);
    await assert.rejects(users.update(bob.id, { email: 'Hank.Work@example.com' }), isUniqueViolation);
    const { id: _hankId, ...hankFields } = (await users.findById(hank.id))!;
    const newUser = { ...hankFields, username: 'hank2', email: 'hank.work@EXAMPLE.com', password_digest: null };
    await assert.rejects(users.create(newUser), isUniqueViolation);
    assert.equal(await users.findByUsername('hank2'), undefined);
    // A primary address given up, and a secondary one removed, are free again.
    await users.update(hank.id, { email: 'hank.new@example.com' });
    const freed = await userEmails.create({ user_id: bob.id, email: 'hank@example.com', confirmed_at: null, created_at: now });
    const work = (await userEmails.findByEmail('hank.work@example.com'))!;
    assert.equal(await userEmails.delete(hank.id, work.id), true);
    assert.equal((await users.update(bob.id, { email: 'hank.work@example.com' }))?.email, 'hank.work@example.com');
    await userEmails.delete(bob.id, freed.id);
    await users.update(bob.id, { email: 'bob@example.com' });
  });

  it('answers the taken address to one of two racing requests for it, whichever wins', async () => {
    const ida = await makeUser(gantry, 'ida');
    const [secondary, created] = await Promise.all([
      gantry.api('POST', `/users/${ida.id}/emails`, { body: { email: 'race@example.com' } }),
      gantry.api('POST', '/users', { body: { email: 'Race@example.com', username: 'racer', name: 'Racer', password: 'a-long-password-1' } }),
    ]);
    const outcomes = [secondary.status, created.status].sort();
    assert.ok(JSON.stringify(outcomes) === '[201,409]' || JSON.stringify(outcomes) === '[201,400]', `${secondary.status} ${secondary.text} / ${created.status} ${created.text}`);
    if (secondary.status === 400) assert.deepEqual(secondary.json, { message: { email: ['has already been taken'] } });
    if (created.status === 409) assert.deepEqual(created.json, { message: 'Email has already been taken' });
  });

  it('lets administrators manage anyone\'s addresses, confirming with skip_confirmation; others get 403', async () => {
    const confirmed = await gantry.api('POST', `/users/${carol.id}/emails`, { body: { email: 'carol.work@example.com', skip_confirmation: true } });
    assert.equal(confirmed.status, 201, confirmed.text);
    assert.ok(typeof confirmed.json.confirmed_at === 'string' && !Number.isNaN(Date.parse(confirmed.json.confirmed_at as string)));
    const unconfirmed = await gantry.api('POST', `/users/${carol.id}/emails`, { body: { email: 'carol.home@example.com' } });
    assert.equal(unconfirmed.json.confirmed_at, null);
    const listed = await gantry.api('GET', `/users/${carol.id}/emails`);
    assert.deepEqual(listed.list, [confirmed.json, unconfirmed.json]);
    assert.equal((await gantry.api('GET', `/users/${carol.id}/emails`, { token: bob.token })).status, 403);
    assert.equal((await gantry.api('POST', `/users/${carol.id}/emails`, { token: bob.token, body: { email: 'y@example.com' } })).status, 403);
    assert.equal((await gantry.api('DELETE', `/users/${carol.id}/emails/${confirmed.json.id}`, { token: bob.token })).status, 403);
    assert.equal((await gantry.api('DELETE', `/users/${bob.id}/emails/${confirmed.json.id}`)).status, 404);
    assert.equal((await gantry.api('DELETE', `/users/${carol.id}/emails/${confirmed.json.id}`)).status, 204);
    assert.deepEqual((await gantry.api('GET', '/users/999999/emails')).json, { message: '404 User Not Found' });
    assert.equal((await gantry.api('POST', `/users/${carol.id}/emails`, { body: { email: 'z@example.com', skip_confirmation: 'maybe' } })).status, 400);
    // A secondary address is no one's primary address either.
    const creating = await gantry.api('POST', '/users', { body: { email: 'Carol.Home@example.com', username: 'homer', name: 'Homer', password: 'secret-password-1' } });
    assert.deepEqual([creating.status, creating.json], [409, { message: 'Email has already been taken' }]);
    // PUT /users/:id answers a taken address with 404, as for primary addresses (docs/api-projects.md).
    assert.deepEqual((await gantry.api('PUT', `/users/${bob.id}`, { body: { email: 'carol.home@example.com' } })).json, { message: 'Email has already been taken' });
    // The address of a removed secondary is free again.
    assert.equal((await gantry.api('POST', '/user/emails', { token: bob.token, body: { email: 'carol.work@example.com' } })).status, 201);
  });

  it('removes a user\'s identity (administrators); 404 "Identity Not Found" without one of that provider', async () => {
    const dave = await gantry.api('POST', '/users', { body: { email: 'dave@example.com', username: 'dave', name: 'Dave', password: 'secret-password-1', provider: 'ldapmain', extern_uid: 'uid=dave' } });
    assert.equal(dave.status, 201, dave.text);
    assert.deepEqual((await gantry.api('GET', `/users/${dave.json.id}`)).json.identities, [{ provider: 'ldapmain', extern_uid: 'uid=dave' }]);
    assert.equal((await gantry.api('DELETE', `/users/${dave.json.id}/identities/ldapmain`, { token: bob.token })).status, 403);
    assert.deepEqual((await gantry.api('DELETE', `/users/${dave.json.id}/identities/github`)).json, { message: '404 Identity Not Found' });
    assert.equal((await gantry.api('DELETE', `/users/${dave.json.id}/identities/ldapmain`)).status, 204);
    assert.deepEqual((await gantry.api('GET', `/users/${dave.json.id}`)).json.identities, []);
    assert.deepEqual([(await gantry.api('DELETE', `/users/${dave.json.id}/identities/ldapmain`)).status, (await gantry.api('DELETE', '/users/999999/identities/ldapmain')).status], [404, 404]);
  });

  it('takes extern_uid and provider together or not at all (400 otherwise), as GitLab, when creating, changing and listing users', async () => {
    const erred = { error: 'extern_uid, provider provide all or none of parameters' };
    const created = await gantry.api('POST', '/users', { body: { email: 'fay@example.com', username: 'fay', name: 'Fay', password: 'secret-password-1', extern_uid: 'uid=fay' } });
    assert.deepEqual([created.status, created.json], [400, erred]);
    assert.equal((await gantry.api('GET', '/users?username=fay')).list.length, 0, 'nothing created');
    const changed = await gantry.api('PUT', `/users/${bob.id}`, { body: { provider: 'ldapmain' } });
    assert.deepEqual([changed.status, changed.json], [400, erred]);
    assert.deepEqual((await gantry.api('GET', `/users/${bob.id}`)).json.identities, []);
    const listed = await gantry.api('GET', '/users?extern_uid=uid%3Dfay');
    assert.deepEqual([listed.status, listed.json], [400, erred]);
    const both = await gantry.api('PUT', `/users/${bob.id}`, { body: { provider: 'ldapmain', extern_uid: 'uid=bob' } });
    assert.equal(both.status, 200, both.text);
    assert.deepEqual((await gantry.api('GET', '/users?extern_uid=uid%3Dbob&provider=ldapmain')).list.map((user) => user.username), ['bob']);
  });

  it('keeps last_activity_on without editing the user, never moving it back, and lists activities since a day to administrators', async () => {
    const erin = await makeUser(gantry, 'erin');
    const today = new Date().toISOString().slice(0, 10);
    const { userActivity } = gantry.coordinator.context.stores;
    const updatedAt = async () => (await gantry.coordinator.context.db.selectFrom('users').select('updated_at').where('id', '=', erin.id).executeTakeFirstOrThrow()).updated_at;
    const before = await updatedAt();
    assert.equal((await gantry.api('GET', `/users/${erin.id}`)).json.last_activity_on, null);
    await userActivity.touch(erin.id, today);
    await userActivity.touch(erin.id, '2000-01-01');
    assert.equal((await gantry.api('GET', `/users/${erin.id}`)).json.last_activity_on, today);
    assert.equal(await updatedAt(), before);
    const activities = await gantry.api('GET', `/user/activities?from=${today}&per_page=100`);
    assert.equal(activities.status, 200, activities.text);
    const erinActivity = activities.list.find((entry) => entry.username === 'erin');
    assert.deepEqual(erinActivity, { username: 'erin', last_activity_on: today, last_activity_at: today });
    assert.deepEqual((await gantry.api('GET', '/user/activities?from=2999-01-01')).list, []);
    // By default: the last six months; a user active long ago is left out.
    const idle = await makeUser(gantry, 'idle');
    await userActivity.touch(idle.id, '2000-01-01');
    const recent = (await gantry.api('GET', '/user/activities?per_page=100')).list.map((entry) => entry.username);
    assert.ok(recent.includes('erin') && !recent.includes('idle'), JSON.stringify(recent));
    assert.equal((await gantry.api('GET', '/user/activities', { token: erin.token })).status, 403);
    assert.equal((await gantry.api('GET', '/user/activities', { token: null })).status, 401);
    assert.equal((await gantry.api('GET', '/user/activities?from=yesterday')).status, 400);
  });

  it('moves last_activity_on on an authenticated API request, in the background, without dropping the cached credential', async () => {
    const fay = await makeUser(gantry, 'fay');
    const today = new Date().toISOString().slice(0, 10);
    const dayOf = async () => (await gantry.api('GET', `/users/${fay.id}`)).json.last_activity_on;
    assert.equal(await dayOf(), null);
    const { stores, readCache } = gantry.coordinator.context;
    // An authenticator on the coordinator's read cache: the same cached credential comes back while nothing drops it.
    const credentialForToken = (token: string) => new Authenticator(stores.users, stores.tokens, readCache).credentialForToken(token);
    const credential = await credentialForToken(fay.token);
    assert.equal((await gantry.api('GET', '/user', { token: fay.token })).status, 200);
    await waitUntil(async () => (await dayOf()) === today, "fay's activity day after her API request");
    // The user's own record shows the day too, and her signed-in credential is still the one cached.
    assert.equal((await gantry.api('GET', '/user', { token: fay.token })).json.last_activity_on, today);
    if (gantry.coordinator.context.dialect === 'sqlite') assert.equal(await credentialForToken(fay.token), credential);
    // An anonymous request records nobody.
    const stranger = await makeUser(gantry, 'gus');
    assert.equal((await gantry.api('GET', `/users/${stranger.id}`, { token: null })).status, 200);
    assert.equal((await gantry.api('GET', `/users/${stranger.id}`)).json.last_activity_on, null);
  });
});
