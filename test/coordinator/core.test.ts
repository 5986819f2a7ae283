import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

describe('coordinator HTTP core', () => {
  let gantry: TestCoordinator;
  before(async () => {
    gantry = await startTestCoordinator();
  });
  after(() => gantry.close());

  it('answers an unknown route with 404 Not Found', async () => {
    const response = await gantry.api('GET', '/no/such/route');
    assert.equal(response.status, 404);
    assert.deepEqual(response.body, { error: '404 Not Found' });
  });

  it('refuses a wrong token with 401 on any route', async () => {
    const response = await gantry.api('GET', '/version', { token: 'wrong' });
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, { message: '401 Unauthorized' });
  });

  it('accepts the token as a query parameter and as a Bearer header', async () => {
    assert.equal((await gantry.api('GET', `/version?private_token=${gantry.rootToken}`, { token: null })).status, 200);
    const bearer = await gantry.api('GET', '/version', { token: null, headers: { authorization: `Bearer ${gantry.rootToken}` } });
    assert.equal(bearer.status, 200);
  });

  it('requires authentication for /version', async () => {
    assert.equal((await gantry.api('GET', '/version', { token: null })).status, 401);
  });

  it('creates root as user 1 with the configured token', async () => {
    const root = await gantry.coordinator.context.stores.users.findById(1);
    assert.equal(root?.username, 'root');
    assert.equal(root?.is_admin, true);
  });
});
