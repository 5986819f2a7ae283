import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, makeUser, type TestUser } from './groups-fixtures.ts';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';

describe('pipeline triggers API', () => {
  let fx: CiSettingsFixture;
  let secondMaintainer: TestUser;
  let triggerId: number;
  let fullToken: string;
  const url = (suffix = '') => `/projects/${fx.project.id}/triggers${suffix}`;

  before(async () => {
    fx = await startCiSettingsFixture();
    secondMaintainer = await makeUser(fx.gantry, 'second-maintainer');
    await addMember(fx.gantry, { type: 'project', id: fx.project.id }, secondMaintainer.id, 40);
  });
  after(() => fx.close());

  it('creates a trigger owned by the caller with a fresh random token', async () => {
    const created = await fx.gantry.api('POST', url(), { body: { description: 'nightly deploy' }, token: fx.maintainer.token });
    assert.equal(created.status, 201, created.text);
    triggerId = Number(created.json.id);
    fullToken = String(created.json.token);
    assert.match(fullToken, /^[0-9a-f]{30}$/);
    assert.deepEqual(Object.keys(created.json).sort(), ['created_at', 'description', 'id', 'last_used', 'owner', 'token', 'updated_at']);
    assert.equal(created.json.description, 'nightly deploy');
    assert.equal(created.json.last_used, null);
    assert.match(String(created.json.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(created.json.updated_at, created.json.created_at);
    const owner = created.json.owner as Record<string, unknown>;
    assert.deepEqual([owner.id, owner.username, owner.web_url], [fx.maintainer.id, 'ci-maintainer', 'http://gantry.test/ci-maintainer']);
    const other = await fx.gantry.api('POST', url(), { body: { description: 'another' }, token: fx.maintainer.token });
    assert.notEqual(other.json.token, fullToken);
  });

  it('shows the full token to its owner and only the first 4 characters to other maintainers', async () => {
    const mine = await fx.gantry.api('GET', url(`/${triggerId}`), { token: fx.maintainer.token });
    assert.deepEqual([mine.status, mine.json.token], [200, fullToken]);
    const theirs = await fx.gantry.api('GET', url(`/${triggerId}`), { token: secondMaintainer.token });
    assert.deepEqual([theirs.status, theirs.json.token], [200, fullToken.slice(0, 4)]);
    const listed = await fx.gantry.api('GET', url(), { token: secondMaintainer.token });
    assert.deepEqual([listed.headers['x-total'], listed.list.map((trigger) => String(trigger.token).length)], ['2', [4, 4]]);
  });

  it('requires a description on create', async () => {
    for (const body of [{}, { description: '' }, { description: '   ' }]) {
      const refused = await fx.gantry.api('POST', url(), { body });
      assert.deepEqual([refused.status, refused.json], [400, { error: 'description is missing' }]);
    }
    const long = await fx.gantry.api('POST', url(), { body: { description: 'd'.repeat(256) } });
    assert.deepEqual([long.status, long.json], [400, { message: { description: ['is too long (maximum is 255 characters)'] } }]);
  });

  it('updates the description, and take_ownership moves the trigger (and its full token) to the caller', async () => {
    const updated = await fx.gantry.api('PUT', url(`/${triggerId}`), { body: { description: 'hourly deploy' }, token: secondMaintainer.token });
    assert.deepEqual([updated.status, updated.json.description, updated.json.token], [200, 'hourly deploy', fullToken.slice(0, 4)]);
    const taken = await fx.gantry.api('POST', url(`/${triggerId}/take_ownership`), { token: secondMaintainer.token });
    assert.deepEqual([taken.status, (taken.json.owner as Record<string, unknown>).id, taken.json.token], [200, secondMaintainer.id, fullToken]);
    const formerOwner = await fx.gantry.api('GET', url(`/${triggerId}`), { token: fx.maintainer.token });
    assert.equal(formerOwner.json.token, fullToken.slice(0, 4));
  });

  it('deletes (204); unknown and malformed ids answer 404 and 400', async () => {
    assert.equal((await fx.gantry.api('DELETE', url(`/${triggerId}`))).status, 204);
    for (const [method, path] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['POST', '/take_ownership']] as const) {
      const missing = await fx.gantry.api(method, url(`/${triggerId}${path}`), method === 'PUT' ? { body: { description: 'x' } } : {});
      assert.deepEqual([missing.status, missing.json], [404, { message: '404 Trigger Not Found' }], `${method} ${path}`);
    }
    const malformed = await fx.gantry.api('GET', url('/abc'));
    assert.deepEqual([malformed.status, malformed.json], [400, { error: 'trigger_id is invalid' }]);
  });

  it('lets only Maintainers manage triggers; non-members of the private project get 404', async () => {
    const [existing] = (await fx.gantry.api('GET', url())).list;
    for (const user of [fx.guest, fx.reporter, fx.developer]) {
      assert.equal((await fx.gantry.api('GET', url(), { token: user.token })).status, 403, user.username);
      assert.equal((await fx.gantry.api('POST', url(), { body: { description: 'x' }, token: user.token })).status, 403, user.username);
      assert.equal((await fx.gantry.api('POST', url(`/${existing!.id}/take_ownership`), { token: user.token })).status, 403, user.username);
      assert.equal((await fx.gantry.api('DELETE', url(`/${existing!.id}`), { token: user.token })).status, 403, user.username);
    }
    assert.deepEqual((await fx.gantry.api('GET', url(), { token: fx.stranger.token })).json, { message: '404 Project Not Found' });
    assert.equal((await fx.gantry.api('GET', url(), { token: null })).status, 401);
  });
});
