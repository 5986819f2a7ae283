import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeUser, type TestUser } from './groups-fixtures.ts';

const today = () => new Date().toISOString().slice(0, 10);

describe('access tokens', () => {
  let gantry: TestCoordinator;
  let alice: TestUser;
  let bob: TestUser;

  before(async () => {
    gantry = await startTestCoordinator();
    alice = await makeUser(gantry, 'alice');
    bob = await makeUser(gantry, 'bob');
  });
  after(() => gantry.close());

  const issue = async (kind: 'impersonation_tokens' | 'personal_access_tokens', body: Record<string, unknown>, userId = alice.id) => {
    const created = await gantry.api('POST', `/users/${userId}/${kind}`, { body });
    assert.equal(created.status, 201, created.text);
    return created.json as Record<string, unknown> & { id: number; token: string };
  };

  it('issues an impersonation token shown once, which then signs the user in', async () => {
    const created = await issue('impersonation_tokens', { name: 'ci', scopes: ['api'], expires_at: '2099-01-31' });
    assert.deepEqual(Object.keys(created).sort(), ['active', 'created_at', 'expires_at', 'id', 'impersonation', 'name', 'revoked', 'scopes', 'token', 'user_id']);
    assert.deepEqual([created.name, created.scopes, created.active, created.revoked, created.impersonation, created.user_id], ['ci', ['api'], true, false, true, alice.id]);
    const me = await gantry.api('GET', '/user', { token: created.token });
    assert.equal(me.json.username, 'alice');
    const shown = await gantry.api('GET', `/users/${alice.id}/impersonation_tokens/${created.id}`);
    assert.equal(shown.json.name, 'ci');
    assert.equal('token' in shown.json, false, 'the token is never shown again');
  });

  it('limits read_api tokens to reads and read_user tokens to the user routes', async () => {
    const reader = (await issue('personal_access_tokens', { name: 'reader', scopes: 'read_api' })).token;
    assert.equal((await gantry.api('GET', '/projects', { token: reader })).status, 200);
    const write = await gantry.api('POST', '/projects', { token: reader, body: { name: 'nope' } });
    assert.equal(write.status, 403);
    assert.deepEqual(write.body, {
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'api',
    });
    const userReader = (await issue('personal_access_tokens', { name: 'profile', scopes: ['read_user'] })).token;
    assert.equal((await gantry.api('GET', '/user', { token: userReader })).status, 200);
    assert.equal((await gantry.api('GET', `/users/${bob.id}`, { token: userReader })).status, 200);
    const projects = await gantry.api('GET', '/projects', { token: userReader });
    assert.deepEqual([projects.status, (projects.body as { scope: string }).scope], [403, 'api read_api']);
  });

  it('needs the sudo scope to act as another user', async () => {
    const rootApi = (await issue('impersonation_tokens', { name: 'root-api', scopes: ['api'] }, 1)).token;
    const refused = await gantry.api('GET', '/user', { token: rootApi, headers: { sudo: 'alice' } });
    assert.deepEqual([refused.status, (refused.body as { scope: string }).scope], [403, 'sudo']);
    const rootSudo = (await issue('impersonation_tokens', { name: 'root-sudo', scopes: ['api', 'sudo'] }, 1)).token;
    assert.equal((await gantry.api('GET', '/user', { token: rootSudo, headers: { sudo: 'alice' } })).json.username, 'alice');
  });

  it('refuses expired and revoked tokens with 401 invalid_token', async () => {
    const expired = await issue('impersonation_tokens', { name: 'old', scopes: ['api'], expires_at: today() });
    assert.equal(expired.active, false);
    assert.deepEqual((await gantry.api('GET', '/user', { token: expired.token })).body, { error: 'invalid_token', error_description: 'Token has expired.' });
    const live = await issue('impersonation_tokens', { name: 'live', scopes: ['api'] });
    assert.equal((await gantry.api('DELETE', `/users/${alice.id}/impersonation_tokens/${live.id}`)).status, 204);
    const revoked = await gantry.api('GET', '/user', { token: live.token });
    assert.equal(revoked.status, 401);
    assert.equal((revoked.body as { error: string }).error, 'invalid_token');
    const inactive = await gantry.api('GET', `/users/${alice.id}/impersonation_tokens?state=inactive`);
    assert.deepEqual(inactive.list.map((token) => token.name), ['old', 'live']);
    const active = await gantry.api('GET', `/users/${alice.id}/impersonation_tokens?state=active`);
    assert.deepEqual(active.list.map((token) => token.name), ['ci']);
  });

  it('lets users list and revoke their own tokens, administrators anyone’s', async () => {
    const bobs = await issue('personal_access_tokens', { name: 'bob-token', scopes: ['api'] }, bob.id);
    const listed = await gantry.api('GET', '/personal_access_tokens', { token: bobs.token });
    assert.deepEqual(listed.list.map((token) => token.user_id), [bob.id, bob.id], 'the fixture token and the new one');
    assert.equal('impersonation' in listed.list[0]!, false);
    const byAdmin = await gantry.api('GET', `/personal_access_tokens?user_id=${bob.id}`);
    assert.equal(byAdmin.list.length, 2);
    assert.equal((await gantry.api('DELETE', `/personal_access_tokens/${bobs.id}`, { token: alice.token })).status, 400);
    assert.equal((await gantry.api('DELETE', `/personal_access_tokens/${bobs.id}`, { token: bobs.token })).status, 204);
    assert.equal((await gantry.api('GET', '/user', { token: bobs.token })).status, 401);
    assert.deepEqual((await gantry.api('DELETE', '/personal_access_tokens/99999')).body, { message: '404 Personal Access Token Not Found' });
  });

  it('validates parameters and keeps the token routes for administrators', async () => {
    const post = (body: Record<string, unknown>, token?: string) => gantry.api('POST', `/users/${alice.id}/impersonation_tokens`, { body, token });
    assert.deepEqual((await post({ scopes: ['api'] })).body, { error: 'name is missing' });
    assert.deepEqual((await post({ name: 'x' })).body, { error: 'scopes is missing' });
    assert.deepEqual((await post({ name: 'x', scopes: ['everything'] })).body, { error: 'scopes does not have a valid value' });
    assert.equal((await post({ name: 'x', scopes: ['api'], expires_at: 'tomorrow' })).status, 400);
    assert.equal((await post({ name: 'x', scopes: ['api'] }, alice.token)).status, 403);
    assert.equal((await post({ name: 'x', scopes: ['api'] }, 'wrong')).status, 401);
    assert.deepEqual((await gantry.api('POST', '/users/99999/personal_access_tokens', { body: { name: 'x', scopes: ['api'] } })).body, { message: '404 User Not Found' });
    assert.deepEqual((await gantry.api('GET', `/users/${bob.id}/impersonation_tokens/1`)).body, { message: '404 Impersonation Token Not Found' });
    assert.equal((await gantry.api('GET', `/users/${alice.id}/impersonation_tokens?state=maybe`)).status, 400);
    assert.equal((await gantry.api('GET', `/users/${alice.id}/impersonation_tokens/abc`)).status, 400);
  });
});
