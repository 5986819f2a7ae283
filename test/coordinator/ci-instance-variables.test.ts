import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeUser, type TestUser } from './groups-fixtures.ts';

/** `/admin/ci/variables`: the instance's CI variables, administrators only, with the project and group variables' rules. */
describe('instance CI variables API', () => {
  let gantry: TestCoordinator;
  let user: TestUser;
  let otherAdmin: TestUser;
  const url = (suffix = '') => `/admin/ci/variables${suffix}`;

  before(async () => {
    gantry = await startTestCoordinator();
    user = await makeUser(gantry, 'plain-user');
    otherAdmin = await makeUser(gantry, 'other-admin', { admin: true });
  });
  after(() => gantry.close());

  it('creates a variable with every field and reads it back by key and in the list', async () => {
    const body = { key: 'DEPLOY_TOKEN', value: 'abc:def@ghi.jk~l', variable_type: 'file', protected: true, masked: true, raw: true, description: 'Deploys' };
    const created = await gantry.api('POST', url(), { body });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json, body);
    const one = await gantry.api('GET', url('/DEPLOY_TOKEN'), { token: otherAdmin.token });
    assert.deepEqual([one.status, one.json], [200, body]);
    const list = await gantry.api('GET', url());
    assert.deepEqual([list.status, list.headers['x-total'], list.list], [200, '1', [body]]);
  });

  it('defaults to an unprotected, unmasked, expanded env_var, without an environment scope (form parameters too)', async () => {
    const created = await gantry.api('POST', url(), { form: { key: 'PLAIN', value: '' } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json, { key: 'PLAIN', value: '', variable_type: 'env_var', protected: false, masked: false, raw: false, description: null });
  });

  it('refuses missing parameters, bad keys, bad types, unmaskable values and duplicate keys as GitLab does', async () => {
    const missingKey = await gantry.api('POST', url(), { body: { value: 'x' } });
    assert.deepEqual([missingKey.status, missingKey.json], [400, { error: 'key is missing' }]);
    const missingValue = await gantry.api('POST', url(), { body: { key: 'K' } });
    assert.deepEqual([missingValue.status, missingValue.json], [400, { error: 'value is missing' }]);
    for (const key of ['BAD-KEY', 'dot.key', 'ключ']) {
      const badKey = await gantry.api('POST', url(), { body: { key, value: 'x' } });
      assert.deepEqual([badKey.status, badKey.json], [400, { message: { key: ["can contain only letters, digits and '_'."] } }], key);
    }
    const longKey = await gantry.api('POST', url(), { body: { key: 'K'.repeat(256), value: 'x' } });
    assert.deepEqual([longKey.status, longKey.json], [400, { message: { key: ['is too long (maximum is 255 characters)'] } }]);
    const longValue = await gantry.api('POST', url(), { body: { key: 'LONG', value: 'v'.repeat(10_001) } });
    assert.deepEqual([longValue.status, longValue.json], [400, { message: { value: ['The value of the provided variable exceeds the 10000 character limit'] } }]);
    const badType = await gantry.api('POST', url(), { body: { key: 'K', value: 'x', variable_type: 'secret' } });
    assert.deepEqual([badType.status, badType.json], [400, { error: 'variable_type does not have a valid value' }]);
    for (const value of ['short', 'has space in it', 'two\nlines!!']) {
      const unmaskable = await gantry.api('POST', url(), { body: { key: 'MASKED', value, masked: true } });
      assert.deepEqual([unmaskable.status, unmaskable.json], [400, { message: { value: ['is invalid'] } }], value);
    }
    const duplicate = await gantry.api('POST', url(), { body: { key: 'DEPLOY_TOKEN', value: 'again' } });
    assert.deepEqual([duplicate.status, duplicate.json], [400, { message: { key: ['(DEPLOY_TOKEN) has already been taken'] } }]);
    const keys = (await gantry.api('GET', url())).list.map((variable) => variable.key);
    assert.deepEqual(keys, ['DEPLOY_TOKEN', 'PLAIN'], 'nothing refused was saved');
  });

  it('takes a description of at most 255 characters; is never hidden (GitLab has no masked_and_hidden here)', async () => {
    const long = await gantry.api('POST', url(), { body: { key: 'DESCRIBED', value: 'v', description: 'd'.repeat(256) } });
    assert.deepEqual([long.status, long.json], [400, { message: { description: ['is too long (maximum is 255 characters)'] } }]);
    const body = { key: 'DESCRIBED', value: 'Zm9vYmFyYmF6', masked_and_hidden: true, description: 'd'.repeat(255) };
    const created = await gantry.api('POST', url(), { body });
    assert.deepEqual([created.status, created.json], [201, { key: 'DESCRIBED', value: 'Zm9vYmFyYmF6', variable_type: 'env_var', protected: false, masked: false, raw: false, description: 'd'.repeat(255) }]);
    const cleared = await gantry.api('PUT', url('/DESCRIBED'), { body: { description: null } });
    assert.deepEqual([cleared.status, cleared.json.description], [200, null]);
    const longUpdate = await gantry.api('PUT', url('/DESCRIBED'), { body: { description: 'd'.repeat(256) } });
    assert.deepEqual([longUpdate.status, longUpdate.json], [400, { message: { description: ['is too long (maximum is 255 characters)'] } }]);
    assert.equal((await gantry.api('DELETE', url('/DESCRIBED'))).status, 204);
  });

  it('updates any field alone, keeps the masking rule on update, deletes with 204; unknown keys are 404', async () => {
    const value = await gantry.api('PUT', url('/PLAIN'), { body: { value: 'Zm9vYmFyYmF6' } });
    assert.deepEqual([value.status, value.json], [200, { key: 'PLAIN', value: 'Zm9vYmFyYmF6', variable_type: 'env_var', protected: false, masked: false, raw: false, description: null }]);
    const flags = await gantry.api('PUT', url('/PLAIN'), { form: { masked: 'true', protected: 'true', raw: 'true', variable_type: 'file', description: 'Plain' } });
    assert.deepEqual(flags.json, { key: 'PLAIN', value: 'Zm9vYmFyYmF6', variable_type: 'file', protected: true, masked: true, raw: true, description: 'Plain' });
    assert.deepEqual((await gantry.api('GET', url('/PLAIN'))).json, flags.json);
    const unmaskable = await gantry.api('PUT', url('/PLAIN'), { body: { value: 'not maskable' } });
    assert.deepEqual([unmaskable.status, unmaskable.json], [400, { message: { value: ['is invalid'] } }]);
    const longValue = await gantry.api('PUT', url('/PLAIN'), { body: { value: 'v'.repeat(10_001) } });
    assert.deepEqual([longValue.status, longValue.json], [400, { message: { value: ['The value of the provided variable exceeds the 10000 character limit'] } }]);
    const badType = await gantry.api('PUT', url('/PLAIN'), { body: { variable_type: 'secret' } });
    assert.equal(badType.status, 400);
    const nothing = await gantry.api('PUT', url('/PLAIN'));
    assert.deepEqual([nothing.status, nothing.json], [200, flags.json]);
    assert.equal((await gantry.api('DELETE', url('/PLAIN'))).status, 204);
    for (const [method, path] of [['GET', '/PLAIN'], ['PUT', '/PLAIN'], ['DELETE', '/PLAIN'], ['GET', '/NOPE']] as const) {
      const missing = await gantry.api(method, url(path), method === 'PUT' ? { body: { value: 'v' } } : {});
      assert.deepEqual([missing.status, missing.json], [404, { message: '404 InstanceVariable Not Found' }], `${method} ${path}`);
    }
  });

  it('is for administrators: other users 403, anonymous callers 401, on every route', async () => {
    const routes = [['GET', ''], ['POST', ''], ['GET', '/DEPLOY_TOKEN'], ['PUT', '/DEPLOY_TOKEN'], ['DELETE', '/DEPLOY_TOKEN']] as const;
    for (const [method, path] of routes) {
      const body = method === 'POST' ? { key: 'BY_USER', value: 'v' } : method === 'PUT' ? { value: 'changed' } : undefined;
      const denied = await gantry.api(method, url(path), { body, token: user.token });
      assert.deepEqual([denied.status, denied.json], [403, { message: '403 Forbidden' }], `${method} ${path}`);
      const anonymous = await gantry.api(method, url(path), { body, token: null });
      assert.equal(anonymous.status, 401, `${method} ${path}`);
    }
    const kept = await gantry.api('GET', url('/DEPLOY_TOKEN'));
    assert.deepEqual([kept.status, kept.json.value], [200, 'abc:def@ghi.jk~l'], 'refused writes changed nothing');
  });

  it('paginates the list, oldest first', async () => {
    for (const key of ['PAGE_A', 'PAGE_B', 'PAGE_C']) assert.equal((await gantry.api('POST', url(), { body: { key, value: 'v' } })).status, 201);
    const all = (await gantry.api('GET', url('?per_page=100'))).list.map((variable) => variable.key);
    assert.deepEqual(all, ['DEPLOY_TOKEN', 'PAGE_A', 'PAGE_B', 'PAGE_C']);
    const page = await gantry.api('GET', url('?per_page=2&page=2'));
    assert.deepEqual([page.headers['x-total'], page.headers['x-total-pages'], page.list.map((variable) => variable.key)], ['4', '2', ['PAGE_B', 'PAGE_C']]);
  });

  it("holds at most 25, GitLab's ci_instance_level_variables limit of a new instance", async () => {
    for (let index = 4; index < 25; index++) assert.equal((await gantry.api('POST', url(), { body: { key: `FILL_${index}`, value: 'v' } })).status, 201);
    const past = await gantry.api('POST', url(), { body: { key: 'ONE_TOO_MANY', value: 'v' } });
    assert.deepEqual([past.status, past.json], [400, { message: { base: ['Maximum number of ci instance level variables (25) exceeded'] } }]);
    assert.equal((await gantry.api('GET', url())).headers['x-total'], '25');
    assert.equal((await gantry.api('DELETE', url('/FILL_4'))).status, 204);
    assert.equal((await gantry.api('POST', url(), { body: { key: 'ONE_TOO_MANY', value: 'v' } })).status, 201, 'room again after a delete');
  });
});
