import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ROOT_TOKEN, startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup, makeProjectWithRepository } from './groups-fixtures.ts';

const REFUSAL = { error: 'the path or a parameter holds a null byte' };

/** A null byte anywhere in the path or the parameters is GitLab's 400 (PostgreSQL answered 500). */
describe('null bytes in requests', () => {
  let gantry: TestCoordinator;
  let projectId: number;

  before(async () => {
    gantry = await startTestCoordinator();
    const group = await makeGroup(gantry, 'nul', { visibility: 'public' });
    projectId = (await makeProjectWithRepository(gantry, group.id, 'app', { visibility: 'public', withReadme: true })).id;
  });
  after(() => gantry.close());

  const send = (method: 'GET' | 'POST', url: string, options: { contentType?: string; payload?: string; token?: string | null } = {}) =>
    gantry.coordinator.app.inject({
      method,
      url: `/api/v4${url}`,
      headers: { ...(options.token === null ? {} : { 'private-token': options.token ?? ROOT_TOKEN }), ...(options.contentType ? { 'content-type': options.contentType } : {}) },
      payload: options.payload,
    });

  it('refuses them in path parameters and the query string, signed in or not', async () => {
    for (const [url, token] of [
      [`/projects/${projectId}/repository/files/a%00b?ref=main`, null],
      ['/groups/nul%00', ROOT_TOKEN],
      ['/users?search=a%00b', null],
      ['/projects?custom_attributes[a%00]=1', ROOT_TOKEN],
      ['/user?sudo=root%00', ROOT_TOKEN],
    ] as const) {
      const response = await send('GET', url, { token });
      assert.deepEqual([response.statusCode, JSON.parse(response.body)], [400, REFUSAL], url);
    }
  });

  it('refuses them in JSON, form and multipart bodies, however deep', async () => {
    const bodies: Array<[string, string]> = [
      ['application/json', JSON.stringify({ name: 'a\u0000b' })],
      ['application/json', JSON.stringify({ name: 'ok', tag_list: ['x', { deep: ['\u0000'] }] })],
      ['application/x-www-form-urlencoded', 'name=a%00b'],
      ['multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\na\u0000b\r\n--b--\r\n'],
    ];
    for (const [contentType, payload] of bodies) {
      const response = await send('POST', '/projects', { contentType, payload });
      assert.deepEqual([response.statusCode, JSON.parse(response.body)], [400, REFUSAL], payload);
    }
    const nested = await gantry.api('POST', `/projects/${projectId}/repository/commits`, {
      body: { branch: 'main', commit_message: 'nul', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\u0000b' }] },
    });
    assert.deepEqual([nested.status, nested.json], [400, REFUSAL]);
  });

  it('still takes binary file contents in base64 and text without null bytes', async () => {
    const created = await gantry.api('POST', `/projects/${projectId}/repository/commits`, {
      body: { branch: 'main', commit_message: 'binary', actions: [{ action: 'create', file_path: 'b.bin', content: Buffer.from([0, 1, 0]).toString('base64'), encoding: 'base64' }] },
    });
    assert.equal(created.status, 201, created.text);
    const raw = await send('GET', `/projects/${projectId}/repository/files/b.bin/raw?ref=main`);
    assert.deepEqual([...raw.rawPayload], [0, 1, 0]);
    assert.equal((await send('GET', '/users?search=r%C3%BCdiger', { token: null })).statusCode, 200);
  });
});
