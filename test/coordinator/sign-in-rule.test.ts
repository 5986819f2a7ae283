import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ROOT_TOKEN, startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

const UNAUTHORIZED = { message: '401 Unauthorized' };

describe('writes need a signed-in caller before their parameters are read', () => {
  let gantry: TestCoordinator;
  before(async () => {
    gantry = await startTestCoordinator();
  });
  after(() => gantry.close());

  it('answers an anonymous write with missing or invalid parameters 401, not 400', async () => {
    const probes: Array<[method: 'POST' | 'PUT' | 'DELETE', path: string, body: unknown]> = [
      ['POST', '/projects', {}],
      ['POST', '/groups', { visibility: 'nonsense' }],
      ['POST', '/users', {}],
      ['PUT', '/users/1', { email: 42 }],
      ['PUT', '/application/settings', {}],
      ['DELETE', '/projects/1', undefined],
    ];
    for (const [method, path, body] of probes) {
      const response = await gantry.api(method, path, { token: null, body });
      assert.equal(response.status, 401, `${method} ${path}: ${response.text}`);
      assert.deepEqual(response.body, UNAUTHORIZED);
    }
  });

  it('still answers a signed-in caller parameter errors with 400', async () => {
    const response = await gantry.api('POST', '/groups', { body: { visibility: 'nonsense' } });
    assert.equal(response.status, 400);
  });

  it('signs in from a private_token in the body before the rule applies', async () => {
    const response = await gantry.api('POST', '/projects', { token: null, body: { name: 'from-body', private_token: ROOT_TOKEN } });
    assert.equal(response.status, 201, response.text);
  });

  it('leaves anonymous reads to their routes', async () => {
    const response = await gantry.api('GET', '/projects', { token: null });
    assert.equal(response.status, 200);
  });
});
