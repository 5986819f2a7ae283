import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

type Created = Record<string, unknown> & { id: number; token: string; user_id: number };

const daysFromToday = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

describe('project and group access tokens', () => {
  let gantry: TestCoordinator;
  let maintainer: TestUser;
  let developer: TestUser;
  let owner: TestUser;
  let projectId: number;
  let groupId: number;

  before(async () => {
    gantry = await startTestCoordinator();
    maintainer = await makeUser(gantry, 'maria', { name: 'Maria' });
    developer = await makeUser(gantry, 'dev');
    owner = await makeUser(gantry, 'olga');
    const group = await makeGroup(gantry, 'team');
    groupId = group.id;
    projectId = (await makeProjectWithRepository(gantry, group.id, 'app', { withReadme: true })).id;
    await addMember(gantry, { type: 'project', id: projectId }, maintainer.id, 40);
    await addMember(gantry, { type: 'project', id: projectId }, developer.id, 30);
    await addMember(gantry, { type: 'namespace', id: groupId }, owner.id, 50);
  });
  after(() => gantry.close());

  const create = async (base: string, body: Record<string, unknown>, token: string) => {
    const created = await gantry.api('POST', `${base}/access_tokens`, { body, token });
    assert.equal(created.status, 201, created.text);
    return created.json as Created;
  };

  it('creates a token whose bot is a member at the token level and acts with its rights', async () => {
    const created = await create(`/projects/${projectId}`, { name: 'renovate', scopes: ['api'], access_level: 30 }, maintainer.token);
    assert.deepEqual(Object.keys(created).sort(), ['access_level', 'active', 'created_at', 'expires_at', 'id', 'last_used_at', 'name', 'revoked', 'scopes', 'token', 'user_id']);
    assert.deepEqual([created.name, created.scopes, created.access_level, created.active, created.revoked], ['renovate', ['api'], 30, true, false]);
    assert.equal(created.expires_at, daysFromToday(365), 'GitLab enforces an expiry: a year by default');
    const me = (await gantry.api('GET', '/user', { token: created.token })).json;
    assert.equal(me.id, created.user_id);
    assert.match(String(me.username), new RegExp(`^project_${projectId}_bot_[0-9a-f]{32}$`));
    assert.equal(me.name, 'renovate');
    const members = await gantry.api('GET', `/projects/${projectId}/members`, { token: maintainer.token });
    assert.deepEqual(members.list.find((member) => member.id === created.user_id)?.access_level, 30, 'GitLab lists bots among members');
    const branch = await gantry.api('POST', `/projects/${projectId}/repository/branches`, { token: created.token, body: { branch: 'bot-branch', ref: 'main' } });
    assert.equal(branch.status, 201, branch.text);
    const settings = await gantry.api('PUT', `/projects/${projectId}`, { token: created.token, body: { description: 'bot' } });
    assert.equal(settings.status, 403, 'a Developer-level bot cannot edit settings');
    const other = await gantry.api('POST', '/projects', { token: created.token, body: { name: 'own' } });
    assert.notEqual(other.status, 201, 'the bot has no projects of its own');
  });

  it('lists and shows tokens (state filter), without the secret', async () => {
    const created = await create(`/projects/${projectId}`, { name: 'lister', scopes: ['read_api'], expires_at: '2099-01-01' }, maintainer.token);
    const listed = await gantry.api('GET', `/projects/${projectId}/access_tokens`, { token: maintainer.token });
    assert.equal(listed.status, 200);
    assert.ok(listed.list.some((token) => token.id === created.id && token.access_level === 40 && token.expires_at === '2099-01-01'));
    assert.ok(listed.list.every((token) => !('token' in token)));
    const shown = await gantry.api('GET', `/projects/${projectId}/access_tokens/${created.id}`, { token: maintainer.token });
    assert.deepEqual([shown.json.name, 'token' in shown.json], ['lister', false]);
    assert.equal((await gantry.api('DELETE', `/projects/${projectId}/access_tokens/${created.id}`, { token: maintainer.token })).status, 204);
    const inactive = await gantry.api('GET', `/projects/${projectId}/access_tokens?state=inactive`, { token: maintainer.token });
    assert.deepEqual(inactive.list.map((token) => [token.id, token.revoked, token.active]), [[created.id, true, false]]);
    const active = await gantry.api('GET', `/projects/${projectId}/access_tokens?state=active`, { token: maintainer.token });
    assert.ok(active.list.every((token) => token.active === true && token.id !== created.id));
    assert.equal((await gantry.api('GET', '/user', { token: created.token })).status, 401, 'a revoked token no longer signs in');
  });

  it('rotates a token: a new secret for the same bot, the old one revoked', async () => {
    const created = await create(`/projects/${projectId}`, { name: 'rotor', scopes: ['api'] }, maintainer.token);
    const rotated = await gantry.api('POST', `/projects/${projectId}/access_tokens/${created.id}/rotate`, { token: maintainer.token });
    assert.equal(rotated.status, 200, rotated.text);
    assert.deepEqual([rotated.json.name, rotated.json.user_id, rotated.json.expires_at], ['rotor', created.user_id, daysFromToday(7)]);
    assert.notEqual(rotated.json.id, created.id);
    assert.equal((await gantry.api('GET', '/user', { token: created.token })).status, 401);
    assert.equal((await gantry.api('GET', '/user', { token: String(rotated.json.token) })).json.id, created.user_id);
    const again = await gantry.api('POST', `/projects/${projectId}/access_tokens/${created.id}/rotate`, { token: maintainer.token, body: { expires_at: '2099-01-01' } });
    assert.deepEqual(again.body, { message: '400 Bad request - token already revoked' });
  });

  it('lets only maintainers manage project tokens, up to their own level', async () => {
    const base = `/projects/${projectId}/access_tokens`;
    assert.deepEqual((await gantry.api('GET', base, { token: developer.token })).body, { message: '401 Unauthorized' });
    const refused = await gantry.api('POST', base, { token: developer.token, body: { name: 'x', scopes: ['api'] } });
    assert.deepEqual(refused.body, { message: '400 Bad request - User does not have permission to create project access token' });
    const tooHigh = await gantry.api('POST', base, { token: maintainer.token, body: { name: 'x', scopes: ['api'], access_level: 50 } });
    assert.deepEqual(tooHigh.body, { message: '400 Bad request - Access level of the token contains permissions not held by the creating user' });
    const created = await create(`/projects/${projectId}`, { name: 'kept', scopes: ['api'] }, maintainer.token);
    assert.deepEqual((await gantry.api('DELETE', `${base}/${created.id}`, { token: developer.token })).body, { message: '400 Bad request - User dev cannot delete kept' });
    assert.deepEqual((await gantry.api('POST', `${base}/${created.id}/rotate`, { token: developer.token })).body, { message: '401 Unauthorized' });
    const botMade = await gantry.api('POST', base, { token: created.token, body: { name: 'child', scopes: ['api'] } });
    assert.equal(botMade.status, 400, 'a token cannot make more tokens');
    assert.deepEqual((await gantry.api('GET', `${base}/99999`, { token: maintainer.token })).body, { message: '404 project Access Token Not Found' });
    assert.deepEqual((await gantry.api('POST', `${base}/99999/rotate`)).body, { message: '404 Not Found' });
    assert.equal((await gantry.api('GET', `/projects/99999/access_tokens`, { token: maintainer.token })).status, 404);
  });

  it('validates parameters as GitLab does', async () => {
    const post = (body: Record<string, unknown>) => gantry.api('POST', `/projects/${projectId}/access_tokens`, { body, token: maintainer.token });
    assert.deepEqual((await post({ scopes: ['api'] })).body, { error: 'name is missing' });
    assert.deepEqual((await post({ name: 'x' })).body, { error: 'scopes is missing' });
    assert.deepEqual((await post({ name: 'x', scopes: ['read_user'] })).body, { error: 'scopes does not have a valid value' });
    assert.deepEqual((await post({ name: 'x', scopes: ['api'], access_level: 35 })).body, { error: 'access_level does not have a valid value' });
    assert.equal((await post({ name: 'x', scopes: ['api'], expires_at: 'soon' })).status, 400);
    assert.equal((await gantry.api('GET', `/projects/${projectId}/access_tokens?state=maybe`, { token: maintainer.token })).status, 400);
  });

  it('gives group tokens to group owners, whose bots reach the group projects', async () => {
    const base = `/groups/${groupId}/access_tokens`;
    const created = await create(`/groups/${groupId}`, { name: 'group-bot', scopes: ['read_api'], access_level: 20 }, owner.token);
    const me = (await gantry.api('GET', '/user', { token: created.token })).json;
    assert.match(String(me.username), new RegExp(`^group_${groupId}_bot_[0-9a-f]{32}$`));
    assert.equal((await gantry.api('GET', `/projects/${projectId}`, { token: created.token })).status, 200);
    const listed = await gantry.api('GET', base, { token: owner.token });
    assert.deepEqual(listed.list.map((token) => [token.id, token.access_level]), [[created.id, 20]]);
    assert.equal((await gantry.api('GET', base, { token: maintainer.token })).status, 401, 'a project maintainer sees the group, not its tokens');
    assert.deepEqual((await gantry.api('GET', `/projects/${projectId}/access_tokens/${created.id}`, { token: maintainer.token })).body, {
      message: '404 project Access Token Not Found',
    });
    assert.equal((await gantry.api('DELETE', `${base}/${created.id}`, { token: owner.token })).status, 204);
    assert.equal((await gantry.api('GET', '/user', { token: created.token })).status, 401);
  });
});
