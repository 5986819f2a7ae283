import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

const workDir = mkdtempSync(join(tmpdir(), 'gantry-ssh-keys-'));
let counter = 0;
function publicKey(type: string, bits?: number): string {
  counter += 1;
  const file = join(workDir, `key${counter}`);
  execFileSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', `k${counter}`, '-f', file, ...(bits ? ['-b', String(bits)] : [])]);
  return readFileSync(`${file}.pub`, 'utf8').trim();
}

describe('SSH keys API', () => {
  let gantry: TestCoordinator;
  let alice: { id: number; token: string };
  let bob: { id: number; token: string };

  before(async () => {
    gantry = await startTestCoordinator();
    alice = await gantry.createUser('alice');
    bob = await gantry.createUser('bob');
  });
  after(async () => {
    await gantry.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('adds, lists, reads and deletes keys of the current user', async () => {
    const key = publicKey('ed25519');
    const created = await gantry.api('POST', '/user/keys', { token: alice.token, body: { title: 'laptop', key } });
    assert.equal(created.status, 201);
    assert.equal(created.json.title, 'laptop');
    assert.equal(created.json.key, key);
    assert.equal(created.json.expires_at, null);
    const id = created.json.id as number;

    const list = await gantry.api('GET', '/user/keys', { token: alice.token });
    assert.deepEqual(list.list.map((item) => item.id), [id]);
    assert.equal(list.headers['x-total'], '1');
    assert.equal((await gantry.api('GET', `/user/keys/${id}`, { token: alice.token })).json.title, 'laptop');

    const foreign = await gantry.api('GET', `/user/keys/${id}`, { token: bob.token });
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.json, { message: '404 Key Not Found' });
    assert.equal((await gantry.api('DELETE', `/user/keys/${id}`, { token: bob.token })).status, 404);

    assert.equal((await gantry.api('DELETE', `/user/keys/${id}`, { token: alice.token })).status, 204);
    assert.equal((await gantry.api('DELETE', `/user/keys/${id}`, { token: alice.token })).status, 404);
    assert.deepEqual((await gantry.api('GET', '/user/keys', { token: alice.token })).list, []);
  });

  it('rejects invalid, duplicate and restricted keys', async () => {
    const invalid = await gantry.api('POST', '/user/keys', { token: alice.token, body: { title: 't', key: 'ssh-rsa AAAAnotakey' } });
    assert.equal(invalid.status, 400);
    assert.deepEqual(invalid.json, { message: { key: ['is invalid'], fingerprint: ['cannot be generated'] } });

    const key = publicKey('ecdsa', 256);
    assert.equal((await gantry.api('POST', '/user/keys', { token: alice.token, body: { title: 'a', key } })).status, 201);
    const duplicate = await gantry.api('POST', '/user/keys', { token: bob.token, body: { title: 'b', key } });
    assert.equal(duplicate.status, 400);
    assert.deepEqual(duplicate.json, { message: { fingerprint: ['has already been taken'] } });

    await gantry.api('PUT', '/application/settings', { body: { rsa_key_restriction: 2048, ed25519_key_restriction: -1 } });
    try {
      const small = await gantry.api('POST', '/user/keys', { token: bob.token, body: { title: 'r', key: publicKey('rsa', 1024) } });
      assert.equal(small.status, 400);
      assert.deepEqual(small.json, { message: { key: ['must be at least 2048 bits'] } });
      const forbidden = await gantry.api('POST', '/user/keys', { token: bob.token, body: { title: 'e', key: publicKey('ed25519') } });
      assert.deepEqual(forbidden.json, { message: { key: ['type is forbidden. Must be RSA, DSA, or ECDSA'] } });
    } finally {
      await gantry.api('PUT', '/application/settings', { body: { rsa_key_restriction: 0, ed25519_key_restriction: 0 } });
    }
  });

  it('requires title and key and checks expires_at', async () => {
    const neither = await gantry.api('POST', '/user/keys', { token: alice.token, body: {} });
    assert.deepEqual(neither.json, { error: 'key is missing, title is missing' });
    const noTitle = await gantry.api('POST', '/user/keys', { token: alice.token, body: { key: publicKey('ed25519') } });
    assert.deepEqual(noTitle.json, { error: 'title is missing' });
    const badDate = await gantry.api('POST', '/user/keys', {
      token: alice.token,
      body: { title: 'd', key: publicKey('ed25519'), expires_at: 'soon' },
    });
    assert.equal(badDate.status, 400);
    const dated = await gantry.api('POST', '/user/keys', {
      token: alice.token,
      body: { title: 'd', key: publicKey('ed25519'), expires_at: '2999-01-01' },
    });
    assert.equal(dated.status, 201);
    assert.equal(dated.json.expires_at, '2999-01-01T00:00:00.000Z');
  });

  it('needs a valid token', async () => {
    assert.equal((await gantry.api('GET', '/user/keys', { token: null })).status, 401);
    assert.equal((await gantry.api('POST', '/user/keys', { token: 'wrong', body: { title: 't', key: publicKey('ed25519') } })).status, 401);
    assert.equal((await gantry.api('GET', '/user/keys/abc', { token: alice.token })).status, 400);
  });

  it('lets administrators manage keys of any user', async () => {
    const key = publicKey('rsa', 2048);
    const created = await gantry.api('POST', `/users/${bob.id}/keys`, { body: { title: 'deploy', key } });
    assert.equal(created.status, 201);
    const listed = await gantry.api('GET', `/users/${bob.id}/keys`);
    assert.ok(listed.list.some((item) => item.id === created.json.id));
    assert.ok((await gantry.api('GET', '/user/keys', { token: bob.token })).list.some((item) => item.id === created.json.id));

    assert.equal((await gantry.api('GET', `/users/${bob.id}/keys`, { token: alice.token })).status, 403);
    assert.equal((await gantry.api('POST', `/users/${bob.id}/keys`, { token: alice.token, body: { title: 'x', key } })).status, 403);
    assert.equal((await gantry.api('DELETE', `/users/${bob.id}/keys/${String(created.json.id)}`, { token: alice.token })).status, 403);
    assert.equal((await gantry.api('GET', '/users/999999/keys')).status, 404);
    assert.equal((await gantry.api('DELETE', `/users/${alice.id}/keys/${String(created.json.id)}`)).status, 404);
    assert.equal((await gantry.api('DELETE', `/users/${bob.id}/keys/${String(created.json.id)}`)).status, 204);
    assert.equal((await gantry.api('GET', `/user/keys/${String(created.json.id)}`, { token: bob.token })).status, 404);
  });
});
