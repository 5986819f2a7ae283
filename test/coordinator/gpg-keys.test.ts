import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseGpgPublicKey } from '../../src/coordinator/services/accounts/keys/gpg-key.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

const gnupgHome = mkdtempSync(join(tmpdir(), 'gantry-gpg-'));
let counter = 0;

/** A fresh armored public key and its fingerprint, as gpg reports them. */
function generateKey(algorithm = 'ed25519'): { armored: string; fingerprint: string } {
  counter += 1;
  const email = `k${counter}@example.com`;
  const env = { ...process.env, GNUPGHOME: gnupgHome };
  execFileSync('gpg', ['--batch', '--passphrase', '', '--quick-gen-key', `Key ${counter} <${email}>`, algorithm, 'default', 'never'], {
    env,
    stdio: 'ignore',
  });
  const armored = execFileSync('gpg', ['--armor', '--export', email], { env, encoding: 'utf8' });
  const colons = execFileSync('gpg', ['--with-colons', '--fingerprint', email], { env, encoding: 'utf8' });
  const fingerprint = /^fpr:+([0-9A-F]+):/m.exec(colons)?.[1] ?? '';
  return { armored, fingerprint };
}

after(() => rmSync(gnupgHome, { recursive: true, force: true }));

describe('GPG key parsing', () => {
  for (const algorithm of ['ed25519', 'rsa2048']) {
    it(`reads the fingerprint of a ${algorithm} key like gpg`, () => {
      const { armored, fingerprint } = generateKey(algorithm);
      const parsed = parseGpgPublicKey(armored);
      assert.equal(parsed?.fingerprint, fingerprint);
      assert.equal(parsed?.primaryKeyId, fingerprint.slice(-16));
    });
  }

  it('reads the subkeys of a key like gpg, none for a key without', () => {
    const { armored, fingerprint } = generateKey();
    assert.deepEqual(parseGpgPublicKey(armored)?.subkeys, []);
    const env = { ...process.env, GNUPGHOME: gnupgHome };
    for (const usage of ['sign', 'encr']) {
      execFileSync('gpg', ['--batch', '--passphrase', '', '--quick-add-key', fingerprint, usage === 'sign' ? 'ed25519' : 'cv25519', usage, 'never'], { env, stdio: 'ignore' });
    }
    const colons = execFileSync('gpg', ['--with-colons', '--with-subkey-fingerprint', '--list-keys', fingerprint], { env, encoding: 'utf8' });
    const expected = [...colons.matchAll(/^sub:.*\nfpr:+([0-9A-F]+):/gm)].map((match) => ({ fingerprint: match[1]!, keyId: match[1]!.slice(-16) }));
    assert.equal(expected.length, 2, colons);
    const withSubkeys = parseGpgPublicKey(execFileSync('gpg', ['--armor', '--export', fingerprint], { env, encoding: 'utf8' }));
    assert.equal(withSubkeys?.fingerprint, fingerprint);
    assert.deepEqual(withSubkeys?.subkeys, expected);
  });

  it('rejects a bad checksum, garbage and non-key packets', () => {
    const { armored } = generateKey();
    const corrupted = armored.replace(/^=.{4}$/m, '=AAAA');
    assert.notEqual(corrupted, armored);
    assert.equal(parseGpgPublicKey(corrupted), null);
    assert.equal(parseGpgPublicKey('hello'), null);
    assert.equal(parseGpgPublicKey('-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nAAAA\n-----END PGP PUBLIC KEY BLOCK-----'), null);
  });
});

describe('GPG keys API', () => {
  let gantry: TestCoordinator;
  let alice: { id: number; token: string };
  let bob: { id: number; token: string };

  before(async () => {
    gantry = await startTestCoordinator();
    alice = await gantry.createUser('alice');
    bob = await gantry.createUser('bob');
  });
  after(() => gantry.close());

  it('adds, lists, reads and deletes keys of the current user', async () => {
    const { armored } = generateKey();
    const created = await gantry.api('POST', '/user/gpg_keys', { token: alice.token, body: { key: armored } });
    assert.equal(created.status, 201);
    assert.equal(created.json.key, armored.trim());
    assert.equal(typeof created.json.created_at, 'string');
    const id = created.json.id as number;
    const list = await gantry.api('GET', '/user/gpg_keys', { token: alice.token });
    assert.deepEqual(list.list.map((item) => item.id), [id]);
    assert.equal(list.headers['x-total'], '1');
    assert.equal((await gantry.api('GET', `/user/gpg_keys/${id}`, { token: alice.token })).json.id, id);
    const foreign = await gantry.api('GET', `/user/gpg_keys/${id}`, { token: bob.token });
    assert.deepEqual(foreign.json, { message: '404 GPG Key Not Found' });
    assert.equal((await gantry.api('DELETE', `/user/gpg_keys/${id}`, { token: bob.token })).status, 404);
    assert.equal((await gantry.api('DELETE', `/user/gpg_keys/${id}`, { token: alice.token })).status, 204);
    assert.equal((await gantry.api('GET', `/user/gpg_keys/${id}`, { token: alice.token })).status, 404);
  });

  it('rejects garbage, broken blocks and duplicates', async () => {
    const garbage = await gantry.api('POST', '/user/gpg_keys', { token: alice.token, body: { key: 'not a key' } });
    assert.equal(garbage.status, 400);
    assert.match(String((garbage.json.message as Record<string, string[]>).key?.[0]), /A valid public GPG key begins with/);
    const broken = await gantry.api('POST', '/user/gpg_keys', {
      token: alice.token,
      body: { key: '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nAAAA\n-----END PGP PUBLIC KEY BLOCK-----' },
    });
    assert.equal(broken.status, 400);
    assert.deepEqual((broken.json.message as Record<string, string[]>).fingerprint, ["can't be blank"]);
    const { armored } = generateKey();
    assert.equal((await gantry.api('POST', '/user/gpg_keys', { token: alice.token, body: { key: armored } })).status, 201);
    const duplicate = await gantry.api('POST', '/user/gpg_keys', { token: bob.token, body: { key: armored } });
    assert.deepEqual(duplicate.json, { message: { fingerprint: ['has already been taken'] } });
    const missing = await gantry.api('POST', '/user/gpg_keys', { token: alice.token, body: {} });
    assert.deepEqual(missing.json, { error: 'key is missing' });
  });

  it('lists the keys of any user publicly', async () => {
    const { armored } = generateKey();
    const created = await gantry.api('POST', '/user/gpg_keys', { token: bob.token, body: { key: armored } });
    const listed = await gantry.api('GET', `/users/${bob.id}/gpg_keys`, { token: null });
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.list.map((item) => item.id), [created.json.id]);
    assert.equal((await gantry.api('GET', '/users/999999/gpg_keys')).status, 404);
  });

  it('reads one key of any user and revokes keys', async () => {
    const { armored } = generateKey();
    const created = await gantry.api('POST', '/user/gpg_keys', { token: alice.token, body: { key: armored } });
    const id = created.json.id as number;
    const shown = await gantry.api('GET', `/users/${alice.id}/gpg_keys/${id}`, { token: null });
    assert.equal(shown.json.id, id);
    assert.equal((await gantry.api('GET', `/users/${bob.id}/gpg_keys/${id}`, { token: null })).status, 404);
    assert.equal((await gantry.api('POST', `/user/gpg_keys/${id}/revoke`, { token: bob.token })).status, 404);
    assert.equal((await gantry.api('POST', `/user/gpg_keys/${id}/revoke`, { token: alice.token })).status, 202);
    assert.equal((await gantry.api('GET', `/user/gpg_keys/${id}`, { token: alice.token })).status, 404);
  });

  it('lets administrators manage keys of any user', async () => {
    const { armored } = generateKey();
    const forbidden = await gantry.api('POST', `/users/${bob.id}/gpg_keys`, { token: alice.token, body: { key: armored } });
    assert.equal(forbidden.status, 403);
    assert.equal((await gantry.api('POST', '/users/999999/gpg_keys', { body: { key: armored } })).status, 404);
    const created = await gantry.api('POST', `/users/${bob.id}/gpg_keys`, { body: { key: armored } });
    assert.equal(created.status, 201);
    const id = created.json.id as number;
    const owned = await gantry.api('GET', '/user/gpg_keys', { token: bob.token });
    assert.ok(owned.list.some((item) => item.id === id));
    assert.equal((await gantry.api('POST', `/users/${bob.id}/gpg_keys`, { body: { key: 'junk' } })).status, 400);
    assert.equal((await gantry.api('DELETE', `/users/${bob.id}/gpg_keys/${id}`, { token: bob.token })).status, 403);
    assert.equal((await gantry.api('DELETE', `/users/${alice.id}/gpg_keys/${id}`)).status, 404);
    assert.equal((await gantry.api('DELETE', `/users/${bob.id}/gpg_keys/${id}`)).status, 204);
    const second = await gantry.api('POST', `/users/${bob.id}/gpg_keys`, { body: { key: generateKey().armored } });
    const revoked = await gantry.api('POST', `/users/${bob.id}/gpg_keys/${second.json.id as number}/revoke`);
    assert.equal(revoked.status, 202);
  });

  it('needs a valid token', async () => {
    assert.equal((await gantry.api('GET', '/user/gpg_keys', { token: null })).status, 401);
    assert.equal((await gantry.api('GET', '/user/gpg_keys', { token: 'wrong' })).status, 401);
    assert.equal((await gantry.api('GET', '/user/gpg_keys/x', { token: alice.token })).status, 400);
  });
});
