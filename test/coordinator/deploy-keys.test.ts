import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { addMember, makeUser, type TestUser } from './groups-fixtures.ts';
import { startRepositoryFixture, type RepositoryFixture } from './repository-fixtures.ts';

/** A fresh `ssh-ed25519 AAAA... comment` line, built without spawning ssh-keygen. */
function ed25519Key(comment = 'deploy@test'): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(String(publicKey.export({ format: 'jwk' }).x), 'base64url');
  const field = (bytes: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, bytes.length]), bytes]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64')} ${comment}`;
}

describe('deploy keys API', () => {
  let fx: RepositoryFixture;
  let project: ProjectRecord;
  let second: ProjectRecord;
  let outsider: ProjectRecord;
  let maintainer: TestUser;
  let lone: TestUser;
  const key = ed25519Key();
  const url = (target: ProjectRecord, suffix = '') => `/projects/${target.id}/deploy_keys${suffix}`;

  before(async () => {
    fx = await startRepositoryFixture();
    project = await fx.project('deployed');
    second = await fx.project('second');
    outsider = await fx.project('outsider');
    maintainer = await makeUser(fx.gantry, 'deployer');
    lone = await makeUser(fx.gantry, 'lone');
    for (const target of [project, second]) await addMember(fx.gantry, { type: 'project', id: target.id }, maintainer.id, 40);
    await addMember(fx.gantry, { type: 'project', id: outsider.id }, lone.id, 40);
  });
  after(() => fx.close());

  let keyId: number;

  it('adds a key with can_push and reads it back', async () => {
    const created = await fx.gantry.api('POST', url(project), { body: { title: 'CI', key, can_push: true }, token: maintainer.token });
    assert.equal(created.status, 201);
    keyId = Number(created.json.id);
    assert.deepEqual(created.json, { id: keyId, title: 'CI', key, created_at: created.json.created_at, can_push: true });
    assert.match(String(created.json.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const list = await fx.gantry.api('GET', url(project), { token: maintainer.token });
    assert.deepEqual([list.status, list.headers['x-total'], list.list.map((entry) => entry.id)], [200, '1', [keyId]]);
    const one = await fx.gantry.api('GET', url(project, `/${keyId}`), { token: maintainer.token });
    assert.equal(one.json.title, 'CI');
    assert.equal((await fx.gantry.api('GET', url(project, '/99999'))).status, 404);
    assert.equal((await fx.gantry.api('GET', url(project, '/abc'))).status, 404);
  });

  it('validates title and key', async () => {
    assert.deepEqual((await fx.gantry.api('POST', url(project), { body: { key } })).json, { error: 'title is missing' });
    assert.deepEqual((await fx.gantry.api('POST', url(project), { body: { title: 'x' } })).json, { error: 'key is missing' });
    const invalid = await fx.gantry.api('POST', url(project), { body: { title: 'x', key: 'ssh-rsa notakey' } });
    assert.deepEqual([invalid.status, invalid.json], [400, { message: { key: ['is invalid'], fingerprint: ['cannot be generated'] } }]);
  });

  it('returns the existing key when it is added to the same project again', async () => {
    const again = await fx.gantry.api('POST', url(project), { body: { title: 'Dup', key } });
    assert.deepEqual([again.status, again.json.id], [201, keyId]);
  });

  it('shares a key with another project only when the caller can access a project using it', async () => {
    const denied = await fx.gantry.api('POST', url(outsider), { body: { title: 'Steal', key }, token: lone.token });
    assert.deepEqual([denied.status, denied.json], [400, { message: { fingerprint: ['has already been taken'] } }]);
    const shared = await fx.gantry.api('POST', url(second), { body: { title: 'Shared', key }, token: maintainer.token });
    assert.deepEqual([shared.status, shared.json.id, shared.json.can_push], [201, keyId, false]);
    assert.equal((await fx.gantry.api('POST', url(outsider, `/${keyId}/enable`), { token: lone.token })).status, 404);
  });

  it('enables a key for a project (201) and updates title and can_push', async () => {
    const enabled = await fx.gantry.api('POST', url(outsider, `/${keyId}/enable`));
    assert.deepEqual([enabled.status, enabled.json.id], [201, keyId]);
    assert.equal((await fx.gantry.api('POST', url(outsider, '/99999/enable'))).status, 404);
    const updated = await fx.gantry.api('PUT', url(second, `/${keyId}`), { body: { title: 'Renamed', can_push: true }, token: maintainer.token });
    assert.deepEqual([updated.status, updated.json.title, updated.json.can_push], [200, 'Renamed', true]);
    assert.equal((await fx.gantry.api('GET', url(project, `/${keyId}`))).json.can_push, true);
    const none = await fx.gantry.api('PUT', url(second, `/${keyId}`), { body: {} });
    assert.equal(none.status, 400);
    assert.equal((await fx.gantry.api('PUT', url(second, '/99999'), { body: { title: 'x' } })).status, 404);
  });

  it('lists every key for admins only', async () => {
    const all = await fx.gantry.api('GET', '/deploy_keys');
    assert.equal(all.status, 200);
    assert.deepEqual(all.list, [{ id: keyId, title: 'Renamed', key, created_at: all.list[0].created_at }]);
    assert.equal((await fx.gantry.api('GET', '/deploy_keys', { token: maintainer.token })).status, 403);
    assert.equal((await fx.gantry.api('GET', '/deploy_keys', { token: null })).status, 401);
  });

  it('needs Maintainer on the project', async () => {
    assert.equal((await fx.gantry.api('GET', url(project), { token: fx.developer.token })).status, 403);
    assert.equal((await fx.gantry.api('POST', url(project), { body: { title: 'r', key: ed25519Key() }, token: fx.reporter.token })).status, 403);
    assert.equal((await fx.gantry.api('GET', url(project), { token: fx.stranger.token })).status, 404);
    assert.equal((await fx.gantry.api('GET', url(project), { token: null })).status, 401);
    assert.equal((await fx.gantry.api('GET', url(project), { token: 'wrong' })).status, 401);
  });

  it('deletes the key row only when no other project uses it', async () => {
    const { stores } = fx.gantry.coordinator.context;
    assert.equal((await fx.gantry.api('DELETE', url(project, `/${keyId}`))).status, 204);
    assert.equal((await fx.gantry.api('DELETE', url(project, `/${keyId}`))).status, 404);
    assert.notEqual(await stores.deployKeys.findById(keyId), null);
    assert.equal((await fx.gantry.api('DELETE', url(second, `/${keyId}`))).status, 204);
    assert.notEqual(await stores.deployKeys.findById(keyId), null);
    assert.equal((await fx.gantry.api('DELETE', url(outsider, `/${keyId}`))).status, 204);
    assert.equal(await stores.deployKeys.findById(keyId), null);
  });

  it('drops a deleted project\'s links and the keys only it used', async () => {
    const { stores } = fx.gantry.coordinator.context;
    const sharedKey = ed25519Key('shared');
    const onlyKey = ed25519Key('only');
    const shared = await fx.gantry.api('POST', url(project), { body: { title: 'S', key: sharedKey } });
    await fx.gantry.api('POST', url(second), { body: { title: 'S', key: sharedKey } });
    const only = await fx.gantry.api('POST', url(project), { body: { title: 'O', key: onlyKey } });
    const deleted = await fx.gantry.api('DELETE', `/projects/${project.id}`);
    assert.ok([202, 204].includes(deleted.status), String(deleted.status));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(await stores.deployKeys.findById(Number(only.json.id)), null);
    assert.deepEqual(await stores.deployKeys.projectIds(Number(shared.json.id)), [second.id]);
  });
});
