import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { exceedsLength } from '../../src/coordinator/services/field-limits.ts';
import { startTestCoordinator, type ApiResponse, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

function ed25519Key(): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(String(publicKey.export({ format: 'jwk' }).x), 'base64url');
  const field = (bytes: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, bytes.length]), bytes]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64')} limits@test`;
}

const tooLong = (field: string, maximum: number) => ({ message: { [field]: [`is too long (maximum is ${maximum} characters)`] } });

/** Asserts GitLab's 400 for `field` over `maximum`. */
function assertTooLong(response: ApiResponse, field: string, maximum: number): void {
  assert.equal(response.status, 400, response.text.slice(0, 300));
  assert.deepEqual(response.json, tooLong(field, maximum));
}

function assertAccepted(response: ApiResponse, status = 200): void {
  assert.equal(response.status, status, response.text.slice(0, 300));
}

describe('exceedsLength counts characters as GitLab does (code points)', () => {
  it('counts an emoji as one character and stays exact around the limit', () => {
    assert.equal(exceedsLength('😀'.repeat(10), 10), false, 'twenty UTF-16 units, ten characters');
    assert.equal(exceedsLength('😀'.repeat(11), 10), true);
    assert.equal(exceedsLength('a'.repeat(10), 10), false);
    assert.equal(exceedsLength('a'.repeat(11), 10), true);
    assert.equal(exceedsLength('x'.repeat(50_000_000), 2000), true, 'a huge value is refused without counting');
  });
});

describe('text field limits: projects, groups, users, keys and tokens', () => {
  let gantry: TestCoordinator;
  let alice: TestUser;
  let projectId: number;
  let groupId: number;

  before(async () => {
    gantry = await startTestCoordinator();
    alice = await makeUser(gantry, 'alice');
    groupId = (await makeGroup(gantry, 'limits', { token: alice.token })).id;
    projectId = (await makeProjectWithRepository(gantry, groupId, 'app')).id;
    await addMember(gantry, { type: 'project', id: projectId }, alice.id, 50);
  });
  after(() => gantry.close());

  const post = (path: string, body: Record<string, unknown>, token = alice.token) => gantry.api('POST', path, { body, token });
  const put = (path: string, body: Record<string, unknown>, token = alice.token) => gantry.api('PUT', path, { body, token });

  it('projects: description 2,000, name, path and ci_config_path 255, each topic 255', async () => {
    assertTooLong(await post('/projects', { name: 'big', description: 'd'.repeat(2001) }), 'description', 2000);
    assertAccepted(await post('/projects', { name: 'big', description: '😀'.repeat(2000) }), 201);
    assertTooLong(await put(`/projects/${projectId}`, { description: 'd'.repeat(2001) }), 'description', 2000);
    assertAccepted(await put(`/projects/${projectId}`, { description: 'd'.repeat(2000) }));
    assertTooLong(await put(`/projects/${projectId}`, { name: 'n'.repeat(256) }), 'name', 255);
    assertAccepted(await put(`/projects/${projectId}`, { name: 'n'.repeat(255) }));
    assertTooLong(await put(`/projects/${projectId}`, { path: 'p'.repeat(256) }), 'path', 255);
    assertAccepted(await put(`/projects/${projectId}`, { path: 'p'.repeat(255) }));
    assertTooLong(await put(`/projects/${projectId}`, { ci_config_path: 'c'.repeat(256) }), 'ci_config_path', 255);
    assertAccepted(await put(`/projects/${projectId}`, { ci_config_path: 'c'.repeat(255) }));
    assertTooLong(await put(`/projects/${projectId}`, { topics: ['ok', 't'.repeat(256)] }), 'topics', 255);
    assertAccepted(await put(`/projects/${projectId}`, { topics: ['t'.repeat(255)] }));
    assertTooLong(await post(`/projects/${projectId}/fork`, { name: 'f'.repeat(256), path: 'fork' }), 'name', 255);
  });

  it('groups: name, path and description 255', async () => {
    assertTooLong(await post('/groups', { name: 'g', path: 'g-desc', description: 'd'.repeat(256) }), 'description', 255);
    assertAccepted(await post('/groups', { name: 'g', path: 'g-desc', description: 'd'.repeat(255) }), 201);
    assertTooLong(await put(`/groups/${groupId}`, { description: 'd'.repeat(256) }), 'description', 255);
    assertTooLong(await put(`/groups/${groupId}`, { name: 'n'.repeat(256) }), 'name', 255);
    assertAccepted(await put(`/groups/${groupId}`, { name: 'n'.repeat(255) }));
    assertTooLong(await put(`/groups/${groupId}`, { path: 'p'.repeat(256) }), 'path', 255);
  });

  it('users: name, username, email and bio 255; location, organization, website_url 500', async () => {
    const userId = alice.id;
    const admin = gantry.rootToken;
    assertTooLong(await put(`/users/${userId}`, { bio: 'b'.repeat(256) }, admin), 'bio', 255);
    assertAccepted(await put(`/users/${userId}`, { bio: 'b'.repeat(255) }, admin));
    for (const field of ['location', 'organization']) {
      assertTooLong(await put(`/users/${userId}`, { [field]: 'x'.repeat(501) }, admin), field, 500);
      assertAccepted(await put(`/users/${userId}`, { [field]: 'x'.repeat(500) }, admin));
    }
    assertTooLong(await put(`/users/${userId}`, { website_url: `https://${'w'.repeat(493)}` }, admin), 'website_url', 500);
    assertAccepted(await put(`/users/${userId}`, { website_url: `https://${'w'.repeat(492)}` }, admin));
    assertTooLong(await put(`/users/${userId}`, { name: 'n'.repeat(256) }, admin), 'name', 255);
    assertTooLong(await put(`/users/${userId}`, { email: `${'e'.repeat(244)}@example.com` }, admin), 'email', 255);
    assertAccepted(await put(`/users/${userId}`, { email: `${'e'.repeat(243)}@example.com` }, admin));
    const created = await post('/users', { name: 'N', username: 'u'.repeat(256), email: 'long@example.com', password: 'secret-password' }, admin);
    assert.equal(created.status, 400);
    assert.deepEqual((created.json.message as Record<string, string[]>).username, ['is too long (maximum is 255 characters)']);
  });

  it('SSH keys and deploy keys: title 255, key 5,000', async () => {
    assertTooLong(await post('/user/keys', { title: 't'.repeat(256), key: ed25519Key() }), 'title', 255);
    assertTooLong(await post('/user/keys', { title: 'long key', key: `${ed25519Key()} ${'c'.repeat(5000)}` }), 'key', 5000);
    assertAccepted(await post('/user/keys', { title: 't'.repeat(255), key: ed25519Key() }), 201);
    const keys = `/projects/${projectId}/deploy_keys`;
    assertTooLong(await post(keys, { title: 't'.repeat(256), key: ed25519Key() }), 'title', 255);
    const added = await post(keys, { title: 't'.repeat(255), key: ed25519Key() });
    assertAccepted(added, 201);
    assertTooLong(await put(`${keys}/${added.json.id}`, { title: 't'.repeat(256) }), 'title', 255);
  });

  it('access tokens: name 255', async () => {
    const tokens = `/users/${alice.id}/personal_access_tokens`;
    assertTooLong(await post(tokens, { name: 'n'.repeat(256), scopes: ['api'] }, gantry.rootToken), 'name', 255);
    assertAccepted(await post(tokens, { name: 'n'.repeat(255), scopes: ['api'] }, gantry.rootToken), 201);
  });
});
