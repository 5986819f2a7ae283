import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeUser, type TestUser } from './groups-fixtures.ts';

const UNSET = { emoji: null, message: null, availability: 'not_set', clear_status_at: null, message_html: '' };

describe('user status', () => {
  let gantry: TestCoordinator;
  let bob: TestUser;

  before(async () => {
    gantry = await startTestCoordinator();
    bob = await makeUser(gantry, 'bob');
  });
  after(() => gantry.close());

  it('reads as unset, is set with PUT /user/status, read by anyone at /users/:id/status, and cleared without emoji and message', async () => {
    assert.deepEqual((await gantry.api('GET', '/user/status', { token: bob.token })).json, UNSET);
    const set = await gantry.api('PUT', '/user/status', { token: bob.token, body: { emoji: 'coffee', message: 'I <3 coffee', availability: 'busy' } });
    assert.equal(set.status, 200);
    assert.deepEqual(set.json, { emoji: 'coffee', message: 'I <3 coffee', availability: 'busy', clear_status_at: null, message_html: 'I &#60;3 coffee' });
    assert.deepEqual((await gantry.api('GET', `/users/${bob.id}/status`, { token: null })).json, set.json);
    const messageOnly = await gantry.api('PUT', '/user/status', { token: bob.token, body: { message: 'away' } });
    assert.deepEqual([messageOnly.json.emoji, messageOnly.json.availability], ['speech_balloon', 'not_set']);
    const cleared = await gantry.api('PUT', '/user/status', { token: bob.token, body: { emoji: '', message: '' } });
    assert.deepEqual(cleared.json, UNSET);
    assert.deepEqual((await gantry.api('GET', '/user/status', { token: bob.token })).json, UNSET);
  });

  it('/users/:id/status also takes a username, as GitLab\'s find_user does (Renovate\'s filterUnavailableUsers asks by username)', async () => {
    await gantry.api('PUT', '/user/status', { token: bob.token, body: { emoji: 'coffee', availability: 'busy' } });
    const byName = await gantry.api('GET', '/users/bob/status', { token: gantry.rootToken });
    assert.equal(byName.status, 200);
    assert.deepEqual([byName.json.availability, byName.json.emoji], ['busy', 'coffee']);
    assert.deepEqual(byName.json, (await gantry.api('GET', `/users/${bob.id}/status`, { token: gantry.rootToken })).json);
    const unknown = await gantry.api('GET', '/users/nobody-here/status', { token: gantry.rootToken });
    assert.deepEqual([unknown.status, unknown.json], [404, { message: '404 User Not Found' }]);
    await gantry.api('PUT', '/user/status', { token: bob.token, body: { emoji: '', message: '' } });
  });

  it('clear_status_after sets clear_status_at; a status past it reads as unset', async () => {
    const before = Date.now();
    const set = await gantry.api('PUT', '/user/status', { token: bob.token, body: { emoji: 'palm_tree', clear_status_after: '3_hours' } });
    const clearAt = Date.parse(set.json.clear_status_at as string);
    assert.ok(clearAt >= before + 3 * 3600_000 && clearAt <= Date.now() + 3 * 3600_000, String(set.json.clear_status_at));
    await gantry.coordinator.context.stores.userStatuses.set({
      user_id: bob.id, emoji: 'palm_tree', message: null, availability: 'not_set', clear_status_at: new Date(Date.now() - 1000).toISOString(), updated_at: new Date().toISOString(),
    });
    assert.deepEqual((await gantry.api('GET', '/user/status', { token: bob.token })).json, UNSET);
  });

  it('answers GitLab\'s errors: 400 for a bad emoji, a long message or a bad choice, 401 anonymous, 404 unknown user', async () => {
    const emoji = await gantry.api('PUT', '/user/status', { token: bob.token, body: { emoji: 'not-an-emoji' } });
    assert.deepEqual([emoji.status, emoji.json], [400, { message: { emoji: ['is not a valid emoji name'] } }]);
    const long = await gantry.api('PUT', '/user/status', { token: bob.token, body: { message: 'x'.repeat(101) } });
    assert.deepEqual([long.status, long.json], [400, { message: { message: ['is too long (maximum is 100 characters)'] } }]);
    const availability = await gantry.api('PUT', '/user/status', { token: bob.token, body: { availability: 'asleep' } });
    assert.deepEqual([availability.status, availability.json], [400, { error: 'availability does not have a valid value' }]);
    assert.equal((await gantry.api('PUT', '/user/status', { token: bob.token, body: { clear_status_after: '2_hours' } })).status, 400);
    assert.equal((await gantry.api('GET', '/user/status', { token: null })).status, 401);
    assert.equal((await gantry.api('PUT', '/user/status', { token: null, body: { emoji: 'coffee' } })).status, 401);
    assert.deepEqual((await gantry.api('GET', '/users/999999/status')).json, { message: '404 User Not Found' });
  });
});
