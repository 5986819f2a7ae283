import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ROOT_TOKEN, startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

describe('JSON bodies and answers as GitLab clients expect them', () => {
  let gantry: TestCoordinator;

  before(async () => {
    gantry = await startTestCoordinator();
  });
  after(() => gantry.close());

  const send = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: string) =>
    gantry.coordinator.app.inject({ method, url: `/api/v4${url}`, headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' }, payload });

  it('answers JSON as plain application/json, errors included', async () => {
    const ok = await gantry.api('GET', '/user');
    assert.equal(ok.headers['content-type'], 'application/json');
    const missing = await gantry.api('GET', '/projects/4242');
    assert.equal(missing.status, 404);
    assert.equal(missing.headers['content-type'], 'application/json');
    const unknownRoute = await gantry.api('GET', '/no-such-thing');
    assert.equal(unknownRoute.headers['content-type'], 'application/json');
  });

  it('takes an empty body sent as application/json as no body', async () => {
    const created = await gantry.api('POST', '/projects', { body: { name: 'doomed' } });
    assert.equal(created.status, 201);
    const deleted = await send('DELETE', `/projects/${created.json.id as number}`, '');
    assert.equal(deleted.statusCode, 202, deleted.body);
    assert.deepEqual(JSON.parse(deleted.body), { message: '202 Accepted' });
  });

  it('still refuses a malformed JSON body with a 400', async () => {
    const response = await send('POST', '/projects', '{"name": ');
    assert.equal(response.statusCode, 400);
    assert.ok(typeof JSON.parse(response.body).error === 'string', response.body);
  });

  it('still refuses prototype poisoning', async () => {
    const response = await send('POST', '/projects', '{"name":"x","__proto__":{"admin":true}}');
    assert.equal(response.statusCode, 400);
  });
});
