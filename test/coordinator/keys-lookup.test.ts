import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from '#deps/kysely';
import { openDatabase } from '../../src/storage/sql/database.ts';
import { migrateToLatest } from '../../src/storage/sql/migrate.ts';
import { keySha256Fingerprints } from '../../src/storage/sql/migrations/036-key-sha256-fingerprints.ts';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { makeUser, type TestUser } from './groups-fixtures.ts';
import { startRepositoryFixture, type RepositoryFixture } from './repository-fixtures.ts';

const workDir = mkdtempSync(join(tmpdir(), 'gantry-key-lookup-'));
let counter = 0;

/** A new key pair by ssh-keygen, with the fingerprints ssh-keygen itself prints for it. */
function keygen(): { key: string; md5: string; sha256: string } {
  counter += 1;
  const file = join(workDir, `key${counter}`);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `k${counter}`, '-f', file]);
  const fingerprint = (hash: string) => execFileSync('ssh-keygen', ['-l', '-E', hash, '-f', `${file}.pub`], { encoding: 'utf8' }).split(' ')[1] ?? '';
  return { key: readFileSync(`${file}.pub`, 'utf8').trim(), md5: fingerprint('md5').replace(/^MD5:/, ''), sha256: fingerprint('sha256') };
}

after(() => rmSync(workDir, { recursive: true, force: true }));

describe('key look-up (/keys)', () => {
  let fx: RepositoryFixture;
  let carol: TestUser;
  let project: ProjectRecord;
  const userKey = keygen();
  const deployKey = keygen();
  let userKeyId: number;
  let deployKeyId: number;

  before(async () => {
    fx = await startRepositoryFixture();
    carol = await makeUser(fx.gantry, 'carol');
    project = await fx.project('deployed');
    const added = await fx.gantry.api('POST', `/users/${carol.id}/keys`, { body: { title: 'laptop', key: userKey.key } });
    assert.equal(added.status, 201, added.text);
    userKeyId = Number(added.json.id);
    const deploy = await fx.gantry.api('POST', `/projects/${project.id}/deploy_keys`, { body: { title: 'CI', key: deployKey.key, can_push: true } });
    assert.equal(deploy.status, 201, deploy.text);
    deployKeyId = Number(deploy.json.id);
  });
  after(() => fx.close());

  it('GET /keys/:id answers the key with its user to administrators', async () => {
    const found = await fx.gantry.api('GET', `/keys/${userKeyId}`);
    assert.equal(found.status, 200, found.text);
    assert.equal(found.json.id, userKeyId);
    assert.equal(found.json.title, 'laptop');
    assert.equal(found.json.key, userKey.key);
    const user = found.json.user as Record<string, unknown>;
    assert.equal(user.id, carol.id);
    assert.equal(user.username, 'carol');
    assert.equal(typeof user.email, 'string', 'administrators see the whole user');
  });

  it('GET /keys/:id and ?fingerprint= show the user\'s last activity day as /users/:id does', async () => {
    // carol's own request moves her activity day, written after the answer.
    assert.equal((await fx.gantry.api('GET', '/user', { token: carol.token })).status, 200);
    const today = new Date().toISOString().slice(0, 10);
    await waitUntil(async () => (await fx.gantry.api('GET', `/users/${carol.id}`)).json.last_activity_on === today, 'carol active today');
    assert.equal(((await fx.gantry.api('GET', `/keys/${userKeyId}`)).json.user as Record<string, unknown>).last_activity_on, today);
    assert.equal(((await fx.gantry.api('GET', `/keys?fingerprint=${encodeURIComponent(userKey.sha256)}`)).json.user as Record<string, unknown>).last_activity_on, today);
  });

  it('GET /keys/:id: 401 without a token, 403 for a non-administrator, 404 for an unknown key', async () => {
    assert.equal((await fx.gantry.api('GET', `/keys/${userKeyId}`, { token: null })).status, 401);
    const forbidden = await fx.gantry.api('GET', `/keys/${userKeyId}`, { token: carol.token });
    assert.deepEqual([forbidden.status, forbidden.json], [403, { message: '403 Forbidden' }]);
    const unknown = await fx.gantry.api('GET', '/keys/999999');
    assert.deepEqual([unknown.status, unknown.json], [404, { message: '404 Key Not Found' }]);
  });

  it('GET /keys?fingerprint= finds a user’s key by the MD5 and the SHA256 forms ssh-keygen prints', async () => {
    for (const fingerprint of [userKey.md5, userKey.md5.toUpperCase(), userKey.sha256]) {
      const found = await fx.gantry.api('GET', `/keys?fingerprint=${encodeURIComponent(fingerprint)}`);
      assert.equal(found.status, 200, `${fingerprint}: ${found.text}`);
      assert.equal(found.json.id, userKeyId);
      assert.equal((found.json.user as Record<string, unknown>).username, 'carol');
      assert.equal(found.json.deploy_keys_projects, undefined);
    }
  });

  it('GET /keys?fingerprint= finds a deploy key with the projects that use it', async () => {
    for (const fingerprint of [deployKey.md5, deployKey.sha256]) {
      const found = await fx.gantry.api('GET', `/keys?fingerprint=${encodeURIComponent(fingerprint)}`);
      assert.equal(found.status, 200, found.text);
      assert.equal(found.json.id, deployKeyId);
      assert.equal(found.json.title, 'CI');
      const links = found.json.deploy_keys_projects as Record<string, unknown>[];
      assert.deepEqual(
        links.map((link) => [link.deploy_key_id, link.project_id, link.can_push]),
        [[deployKeyId, project.id, true]],
      );
    }
  });

  it('GET /keys?fingerprint=: 400 for a malformed fingerprint, 404 for an unknown one, 403 and 401 for others', async () => {
    for (const bad of ['nonsense', 'SHA256:tooshort', 'ba:81:59', `${userKey.md5}:00`]) {
      const answer = await fx.gantry.api('GET', `/keys?fingerprint=${encodeURIComponent(bad)}`);
      assert.deepEqual([answer.status, answer.json], [400, { message: 'Failed to return the key' }], bad);
    }
    const missing = await fx.gantry.api('GET', '/keys');
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.json, { error: 'fingerprint is missing' });
    const unknown = keygen();
    const notFound = await fx.gantry.api('GET', `/keys?fingerprint=${encodeURIComponent(unknown.sha256)}`);
    assert.deepEqual([notFound.status, notFound.json], [404, { message: '404 Key Not Found' }]);
    assert.equal((await fx.gantry.api('GET', `/keys?fingerprint=${userKey.md5}`, { token: carol.token })).status, 403);
    assert.equal((await fx.gantry.api('GET', `/keys?fingerprint=${userKey.md5}`, { token: null })).status, 401);
  });

  it('GET /users/:id/keys/:key_id answers one key of a readable user, 404 for another user’s key', async () => {
    const own = await fx.gantry.api('GET', `/users/${carol.id}/keys/${userKeyId}`, { token: carol.token });
    assert.deepEqual([own.status, own.json.id, own.json.title], [200, userKeyId, 'laptop']);
    const other = await makeUser(fx.gantry, 'dave');
    const wrong = await fx.gantry.api('GET', `/users/${other.id}/keys/${userKeyId}`, { token: carol.token });
    assert.deepEqual([wrong.status, wrong.json], [404, { message: '404 Key Not Found' }]);
    assert.equal((await fx.gantry.api('GET', `/users/999999/keys/${userKeyId}`)).status, 404);
  });
});

describe('migration 036', () => {
  it('fills in the SHA-256 fingerprints of keys stored before it, as ssh-keygen computes them', async () => {
    const { db, dialect, close } = openDatabase(':memory:');
    await migrateToLatest(db, dialect);
    // Back to the schema before 036, with one key of each kind in it.
    for (const table of ['ssh_keys', 'deploy_keys'] as const) {
      await sql.raw(`DROP INDEX ${table}_fingerprint_sha256`).execute(db);
      await sql.raw(`ALTER TABLE ${table} DROP COLUMN fingerprint_sha256`).execute(db);
    }
    const sshKey = keygen();
    const deploy = keygen();
    // The migration reads keys only: their owner need not exist for it.
    await sql.raw('PRAGMA foreign_keys = OFF').execute(db);
    const now = new Date().toISOString();
    await sql`INSERT INTO ssh_keys (user_id, title, key, fingerprint, key_type, key_bits, created_at) VALUES (1, 'old', ${sshKey.key}, ${sshKey.md5}, 'ed25519', 256, ${now})`.execute(db);
    await sql`INSERT INTO deploy_keys (title, key, fingerprint, created_at) VALUES ('old', ${deploy.key}, ${deploy.md5}, ${now})`.execute(db);
    await keySha256Fingerprints.up(db, dialect);
    const stored = await db.selectFrom('ssh_keys').select('fingerprint_sha256').executeTakeFirstOrThrow();
    assert.equal(`SHA256:${stored.fingerprint_sha256}`, sshKey.sha256);
    const storedDeploy = await db.selectFrom('deploy_keys').select('fingerprint_sha256').executeTakeFirstOrThrow();
    assert.equal(`SHA256:${storedDeploy.fingerprint_sha256}`, deploy.sha256);
    await close();
  });
});
