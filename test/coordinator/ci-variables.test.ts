import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, makeUser, type TestUser } from './groups-fixtures.ts';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';

describe('project CI variables API', () => {
  let fx: CiSettingsFixture;
  const url = (suffix = '') => `/projects/${fx.project.id}/variables${suffix}`;

  before(async () => {
    fx = await startCiSettingsFixture();
  });
  after(() => fx.close());

  it('creates a variable with every field and reads it back by key, in the list and by full path', async () => {
    const fields = { key: 'DEPLOY_TOKEN', value: 'abc:def@ghi.jk~l', variable_type: 'file', protected: true, masked: true, raw: true, environment_scope: 'production', description: 'Deploys' };
    const created = await fx.gantry.api('POST', url(), { body: fields, token: fx.maintainer.token });
    assert.equal(created.status, 201, created.text);
    const body = { ...fields, hidden: false };
    assert.deepEqual(created.json, body);
    const one = await fx.gantry.api('GET', url('/DEPLOY_TOKEN'), { token: fx.maintainer.token });
    assert.deepEqual([one.status, one.json], [200, body]);
    const byPath = await fx.gantry.api('GET', `/projects/${encodeURIComponent('ci/app')}/variables/DEPLOY_TOKEN`, { token: fx.maintainer.token });
    assert.equal(byPath.json.value, 'abc:def@ghi.jk~l');
    const list = await fx.gantry.api('GET', url(), { token: fx.maintainer.token });
    assert.deepEqual([list.status, list.headers['x-total'], list.list], [200, '1', [body]]);
  });

  it('defaults to an unprotected, unmasked env_var for every environment (form parameters too)', async () => {
    const created = await fx.gantry.api('POST', url(), { form: { key: 'PLAIN', value: '' } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json, { key: 'PLAIN', value: '', variable_type: 'env_var', hidden: false, protected: false, masked: false, raw: false, environment_scope: '*', description: null });
  });

  it('refuses bad keys, missing parameters and bad variable types', async () => {
    const missingKey = await fx.gantry.api('POST', url(), { body: { value: 'x' } });
    assert.deepEqual([missingKey.status, missingKey.json], [400, { error: 'key is missing' }]);
    const missingValue = await fx.gantry.api('POST', url(), { body: { key: 'K' } });
    assert.deepEqual([missingValue.status, missingValue.json], [400, { error: 'value is missing' }]);
    const badKey = await fx.gantry.api('POST', url(), { body: { key: 'BAD-KEY', value: 'x' } });
    assert.deepEqual([badKey.status, badKey.json], [400, { message: { key: ["can contain only letters, digits and '_'."] } }]);
    const longKey = await fx.gantry.api('POST', url(), { body: { key: 'K'.repeat(256), value: 'x' } });
    assert.deepEqual([longKey.status, longKey.json], [400, { message: { key: ['is too long (maximum is 255 characters)'] } }]);
    const badType = await fx.gantry.api('POST', url(), { body: { key: 'K', value: 'x', variable_type: 'secret' } });
    assert.deepEqual([badType.status, badType.json], [400, { error: 'variable_type does not have a valid value' }]);
    const badScope = await fx.gantry.api('POST', url(), { body: { key: 'K', value: 'x', environment_scope: 'prod!' } });
    assert.equal(badScope.status, 400);
    assert.ok('environment_scope' in (badScope.json.message as Record<string, unknown>));
  });

  it('applies GitLab masking rules to masked values, on create and on update', async () => {
    for (const value of ['short', 'has space in it', 'two\nlines!!', 'dollar$sign1', 'ünïcödé-value']) {
      const refused = await fx.gantry.api('POST', url(), { body: { key: 'MASKED', value, masked: true } });
      assert.deepEqual([refused.status, refused.json], [400, { message: { value: ['is invalid'] } }], value);
    }
    const accepted = await fx.gantry.api('POST', url(), { body: { key: 'MASKED', value: 'Zm9vYmFy+/=_-@:.~', masked: true } });
    assert.deepEqual([accepted.status, accepted.json.masked], [201, true]);
    const unmaskable = await fx.gantry.api('PUT', url('/MASKED'), { body: { value: 'not maskable' } });
    assert.deepEqual([unmaskable.status, unmaskable.json], [400, { message: { value: ['is invalid'] } }]);
    const maskPlain = await fx.gantry.api('PUT', url('/PLAIN'), { body: { masked: true } });
    assert.deepEqual([maskPlain.status, maskPlain.json], [400, { message: { value: ['is invalid'] } }]);
    assert.equal((await fx.gantry.api('GET', url('/MASKED'))).json.value, 'Zm9vYmFy+/=_-@:.~');
  });

  it('answers a duplicate key in the same scope with GitLab validation message, and allows it in another scope', async () => {
    const duplicate = await fx.gantry.api('POST', url(), { body: { key: 'DEPLOY_TOKEN', value: 'y', environment_scope: 'production' } });
    assert.deepEqual([duplicate.status, duplicate.json], [400, { message: { key: ['(DEPLOY_TOKEN) has already been taken'] } }]);
    const staging = await fx.gantry.api('POST', url(), { body: { key: 'DEPLOY_TOKEN', value: 'staging-value', environment_scope: 'staging' } });
    assert.equal(staging.status, 201, staging.text);
  });

  it('needs filter[environment_scope] when several scopes share a key (409 otherwise), on GET, PUT and DELETE', async () => {
    const ambiguous = await fx.gantry.api('GET', url('/DEPLOY_TOKEN'));
    assert.deepEqual([ambiguous.status, ambiguous.json], [409, { message: "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'" }]);
    assert.equal((await fx.gantry.api('PUT', url('/DEPLOY_TOKEN'), { body: { value: 'z' } })).status, 409);
    assert.equal((await fx.gantry.api('DELETE', url('/DEPLOY_TOKEN'))).status, 409);
    const staging = await fx.gantry.api('GET', url('/DEPLOY_TOKEN?filter[environment_scope]=staging'));
    assert.deepEqual([staging.status, staging.json.value, staging.json.environment_scope], [200, 'staging-value', 'staging']);
    const nowhere = await fx.gantry.api('GET', url('/DEPLOY_TOKEN?filter[environment_scope]=review'));
    assert.deepEqual([nowhere.status, nowhere.json], [404, { message: '404 Variable Not Found' }]);
    const updated = await fx.gantry.api('PUT', url('/DEPLOY_TOKEN'), { body: { value: 'staging-2', protected: true, filter: { environment_scope: 'staging' } } });
    assert.deepEqual([updated.status, updated.json.value, updated.json.protected, updated.json.environment_scope], [200, 'staging-2', true, 'staging']);
    const production = await fx.gantry.api('GET', url('/DEPLOY_TOKEN?filter[environment_scope]=production'));
    assert.equal(production.json.value, 'abc:def@ghi.jk~l');
    const deleted = await fx.gantry.api('DELETE', url('/DEPLOY_TOKEN?filter[environment_scope]=staging'));
    assert.equal(deleted.status, 204);
    const left = await fx.gantry.api('GET', url('/DEPLOY_TOKEN'));
    assert.deepEqual([left.status, left.json.environment_scope], [200, 'production']);
  });

  it('updates flags (protected and masked round-trip) and deletes; unknown keys are 404', async () => {
    const updated = await fx.gantry.api('PUT', url('/DEPLOY_TOKEN'), { body: { protected: false, masked: false, raw: false, variable_type: 'env_var', value: 'new value', description: null } });
    assert.deepEqual(updated.json, { key: 'DEPLOY_TOKEN', value: 'new value', variable_type: 'env_var', hidden: false, protected: false, masked: false, raw: false, environment_scope: 'production', description: null });
    assert.deepEqual((await fx.gantry.api('GET', url('/DEPLOY_TOKEN'))).json, updated.json);
    const reprotected = await fx.gantry.api('PUT', url('/DEPLOY_TOKEN'), { form: { protected: 'true' } });
    assert.deepEqual([reprotected.json.protected, reprotected.json.value], [true, 'new value']);
    assert.equal((await fx.gantry.api('DELETE', url('/DEPLOY_TOKEN'))).status, 204);
    for (const [method, path] of [['GET', '/DEPLOY_TOKEN'], ['PUT', '/DEPLOY_TOKEN'], ['DELETE', '/DEPLOY_TOKEN'], ['GET', '/NOPE']] as const) {
      const missing = await fx.gantry.api(method, url(path), method === 'PUT' ? { body: { value: 'v' } } : {});
      assert.deepEqual([missing.status, missing.json], [404, { message: '404 Variable Not Found' }], `${method} ${path}`);
    }
  });

  it('lets only Maintainers manage variables; a private project is 404 to non-members, anonymous callers 401', async () => {
    for (const user of [fx.guest, fx.reporter, fx.developer]) {
      assert.deepEqual((await fx.gantry.api('GET', url(), { token: user.token })).status, 403, user.username);
      assert.equal((await fx.gantry.api('POST', url(), { body: { key: 'X', value: 'y' }, token: user.token })).status, 403, user.username);
      assert.equal((await fx.gantry.api('GET', url('/MASKED'), { token: user.token })).status, 403, user.username);
    }
    const stranger = await fx.gantry.api('GET', url(), { token: fx.stranger.token });
    assert.deepEqual([stranger.status, stranger.json], [404, { message: '404 Project Not Found' }]);
    assert.equal((await fx.gantry.api('GET', url(), { token: null })).status, 401);
    assert.equal((await fx.gantry.api('GET', '/projects/999999/variables')).status, 404);
    assert.equal((await fx.gantry.api('GET', url(), { token: fx.maintainer.token })).status, 200);
  });

  it('paginates the list', async () => {
    for (const key of ['PAGE_A', 'PAGE_B', 'PAGE_C']) await fx.gantry.api('POST', url(), { body: { key, value: 'v' } });
    const all = (await fx.gantry.api('GET', url('?per_page=100'))).list.map((variable) => variable.key);
    assert.deepEqual(all, ['PLAIN', 'MASKED', 'PAGE_A', 'PAGE_B', 'PAGE_C']);
    const page = await fx.gantry.api('GET', url('?per_page=2&page=2'));
    assert.deepEqual([page.headers['x-total'], page.headers['x-total-pages'], page.list.map((variable) => variable.key)], ['5', '3', ['PAGE_A', 'PAGE_B']]);
  });
});

describe('group CI variables API', () => {
  let fx: CiSettingsFixture;
  let groupMaintainer: TestUser;
  let groupDeveloper: TestUser;
  const url = (suffix = '') => `/groups/${fx.group.id}/variables${suffix}`;

  before(async () => {
    fx = await startCiSettingsFixture();
    groupMaintainer = await makeUser(fx.gantry, 'group-maintainer');
    groupDeveloper = await makeUser(fx.gantry, 'group-developer');
    await addMember(fx.gantry, { type: 'namespace', id: fx.group.id }, groupMaintainer.id, 40);
    await addMember(fx.gantry, { type: 'namespace', id: fx.group.id }, groupDeveloper.id, 30);
  });
  after(() => fx.close());

  it('creates, reads, lists, updates and deletes a variable (protected and masked round-trip)', async () => {
    const created = await fx.gantry.api('POST', url(), { body: { key: 'GROUP_KEY', value: 'group-secret-1', protected: true, masked: true }, token: groupMaintainer.token });
    assert.equal(created.status, 201, created.text);
    const defaults = { hidden: false, raw: false, environment_scope: '*', description: null };
    assert.deepEqual(created.json, { key: 'GROUP_KEY', value: 'group-secret-1', variable_type: 'env_var', protected: true, masked: true, ...defaults });
    const byPath = await fx.gantry.api('GET', `/groups/ci/variables/GROUP_KEY`, { token: groupMaintainer.token });
    assert.deepEqual([byPath.status, byPath.json], [200, created.json]);
    const list = await fx.gantry.api('GET', url());
    assert.deepEqual([list.headers['x-total'], list.list], ['1', [created.json]]);
    const updated = await fx.gantry.api('PUT', url('/GROUP_KEY'), { body: { value: 'plain', protected: false, masked: false, variable_type: 'file' } });
    assert.deepEqual(updated.json, { key: 'GROUP_KEY', value: 'plain', variable_type: 'file', protected: false, masked: false, ...defaults });
    assert.equal((await fx.gantry.api('DELETE', url('/GROUP_KEY'))).status, 204);
    for (const [method, path] of [['GET', '/GROUP_KEY'], ['PUT', '/GROUP_KEY'], ['DELETE', '/GROUP_KEY']] as const) {
      const missing = await fx.gantry.api(method, url(path), method === 'PUT' ? { body: { value: 'v' } } : {});
      assert.deepEqual([missing.status, missing.json], [404, { message: '404 GroupVariable Not Found' }], `${method} ${path}`);
    }
  });

  it("follows spec 01's key rules and requires value on update", async () => {
    for (const key of ['has-dash', 'dot.key', 'space key', 'ключ']) {
      const refused = await fx.gantry.api('POST', url(), { body: { key, value: 'v' } });
      assert.deepEqual([refused.status, refused.json], [400, { message: { key: ["can contain only letters, digits and '_'."] } }], key);
    }
    assert.equal((await fx.gantry.api('POST', url(), { body: { key: 'K'.repeat(255), value: 'v' } })).status, 201);
    assert.equal((await fx.gantry.api('POST', url(), { body: { key: 'K'.repeat(256), value: 'v' } })).status, 400);
    const duplicate = await fx.gantry.api('POST', url(), { body: { key: 'K'.repeat(255), value: 'v' } });
    assert.deepEqual(duplicate.json, { message: { key: [`(${'K'.repeat(255)}) has already been taken`] } });
    const noValue = await fx.gantry.api('PUT', url(`/${'K'.repeat(255)}`), { body: { protected: true } });
    assert.deepEqual([noValue.status, noValue.json], [400, { error: 'value is missing' }]);
    const masked = await fx.gantry.api('POST', url(), { body: { key: 'M', value: 'short', masked: true } });
    assert.deepEqual([masked.status, masked.json], [400, { message: { value: ['is invalid'] } }]);
  });

  it('lets group Maintainers and Owners manage; Developers get 403, non-members of a private group 404', async () => {
    assert.equal((await fx.gantry.api('GET', url(), { token: groupDeveloper.token })).status, 403);
    assert.equal((await fx.gantry.api('POST', url(), { body: { key: 'DEV', value: 'v' }, token: groupDeveloper.token })).status, 403);
    // A project maintainer is not a group member.
    const projectOnly = await fx.gantry.api('GET', url(), { token: fx.maintainer.token });
    assert.equal(projectOnly.status, 403);
    const stranger = await fx.gantry.api('GET', url(), { token: fx.stranger.token });
    assert.deepEqual([stranger.status, stranger.json], [404, { message: '404 Group Not Found' }]);
    assert.equal((await fx.gantry.api('GET', '/groups/999999/variables')).status, 404);
    assert.equal((await fx.gantry.api('GET', url(), { token: groupMaintainer.token })).status, 200);
  });
});
