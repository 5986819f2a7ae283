import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup, makeProject, makeUser, type TestUser } from './groups-fixtures.ts';

/**
 * Runner authentication tokens (GitLab 15.10+): `POST /user/runners` creates a runner and its
 * `glrt-` token; `POST /runners/verify` with a `system_id` records the host as a runner
 * manager; `GET /runners/:id/managers`, `DELETE /runners/managers`; token resets by the runner
 * and by administrators and owners; token expiry from the application settings.
 */
describe('runner authentication tokens and managers', () => {
  let gantry: TestCoordinator;
  let owner: TestUser;
  let developer: TestUser;
  let groupId: number;
  let projectId: number;

  const asRunner = (method: 'POST' | 'DELETE', path: string, body: unknown) =>
    gantry.api(method, path, { token: null, body, headers: { 'user-agent': 'gitlab-runner 18.11.0 (18-11-stable; go1.24.6; linux/amd64)' } });

  const createInstanceRunner = async (extra: Record<string, unknown> = {}) => {
    const created = await gantry.api('POST', '/user/runners', { body: { runner_type: 'instance_type', ...extra } });
    assert.equal(created.status, 201, created.text);
    return { id: Number(created.json.id), token: String(created.json.token), expiresAt: created.json.token_expires_at };
  };

  before(async () => {
    gantry = await startTestCoordinator();
    owner = await makeUser(gantry, 'owner');
    developer = await makeUser(gantry, 'developer');
    const group = await makeGroup(gantry, 'fleet', { token: owner.token });
    groupId = group.id;
    projectId = (await makeProject(gantry, groupId, 'app')).id;
    const member = await gantry.api('POST', `/projects/${projectId}/members`, { body: { user_id: developer.id, access_level: 30 } });
    assert.equal(member.status, 201, member.text);
  });
  after(() => gantry.close());

  it('creates a runner for the signed-in user: 201 {id, token glrt-…, token_expires_at} with its settings', async () => {
    const created = await gantry.api('POST', '/user/runners', {
      body: { runner_type: 'instance_type', description: 'fleet', maintenance_note: 'rack 4', paused: true, tag_list: 'docker,linux', run_untagged: false, access_level: 'ref_protected', maximum_timeout: 3600 },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers['content-type'], 'application/json');
    assert.deepEqual(Object.keys(created.json), ['id', 'token', 'token_expires_at']);
    assert.match(String(created.json.token), /^glrt-[\w-]{20}$/);
    assert.equal(created.json.token_expires_at, null, 'no expiry unless the settings set one');
    const details = (await gantry.api('GET', `/runners/${String(created.json.id)}`)).json;
    assert.deepEqual(
      [details.runner_type, details.description, details.maintenance_note, details.active, details.paused, details.tag_list, details.run_untagged, details.locked, details.access_level, details.maximum_timeout, details.status],
      ['instance_type', 'fleet', 'rack 4', false, true, ['docker', 'linux'], false, false, 'ref_protected', 3600, 'not_connected'],
    );
  });

  it('checks who may create which runner, as GitLab does', async () => {
    const asOwner = await gantry.api('POST', '/user/runners', { token: owner.token, body: { runner_type: 'group_type', group_id: groupId } });
    assert.equal(asOwner.status, 201, asOwner.text);
    const groupRunner = (await gantry.api('GET', `/runners/${String(asOwner.json.id)}`)).json;
    assert.deepEqual((groupRunner.groups as Array<{ id: number }>).map((group) => group.id), [groupId]);
    const projectRunner = await gantry.api('POST', '/user/runners', { token: owner.token, body: { runner_type: 'project_type', project_id: projectId } });
    assert.equal(projectRunner.status, 201, projectRunner.text);
    const projects = (await gantry.api('GET', `/runners/${String(projectRunner.json.id)}`)).json.projects as Array<{ id: number }>;
    assert.deepEqual(projects.map((project) => project.id), [projectId]);

    const forbidden = { message: '403 Forbidden - Insufficient permissions' };
    assert.deepEqual((await gantry.api('POST', '/user/runners', { token: owner.token, body: { runner_type: 'instance_type' } })).json, forbidden);
    const developerProject = await gantry.api('POST', '/user/runners', { token: developer.token, body: { runner_type: 'project_type', project_id: projectId } });
    assert.deepEqual([developerProject.status, developerProject.json], [403, forbidden]);
    const developerGroup = await gantry.api('POST', '/user/runners', { token: developer.token, body: { runner_type: 'group_type', group_id: groupId } });
    assert.deepEqual([developerGroup.status, developerGroup.json], [403, forbidden]);

    const noGroup = await gantry.api('POST', '/user/runners', { body: { runner_type: 'group_type' } });
    assert.deepEqual([noGroup.status, noGroup.json], [400, { error: 'group_id is missing' }]);
    const unknownGroup = await gantry.api('POST', '/user/runners', { body: { runner_type: 'group_type', group_id: 999_999 } });
    assert.deepEqual([unknownGroup.status, unknownGroup.json], [400, { message: '400 Bad request - Missing/invalid group' }]);
    const unknownProject = await gantry.api('POST', '/user/runners', { body: { runner_type: 'project_type', project_id: 999_999 } });
    assert.deepEqual([unknownProject.status, unknownProject.json], [400, { message: '400 Bad request - Missing/invalid project' }]);
    const badType = await gantry.api('POST', '/user/runners', { body: { runner_type: 'everywhere' } });
    assert.deepEqual([badType.status, badType.json], [400, { error: 'runner_type does not have a valid value' }]);
    assert.equal((await gantry.api('POST', '/user/runners', { token: null, body: { runner_type: 'instance_type' } })).status, 401);
  });

  it('verify answers {id, token, token_expires_at} and records one manager per system id', async () => {
    const { id, token } = await createInstanceRunner();
    const info = { name: 'gitlab-runner', version: '18.11.0', revision: 'a1b2c3d4', platform: 'linux', architecture: 'amd64', features: { cancel_gracefully: true } };
    const verified = await asRunner('POST', '/runners/verify', { token, system_id: 's_0123456789ab', info });
    assert.equal(verified.status, 200);
    assert.equal(verified.headers['content-type'], 'application/json');
    assert.deepEqual(verified.json, { id, token, token_expires_at: null });
    assert.equal((await asRunner('POST', '/runners/verify', { token, system_id: 'r_ABCDEFGHijkl', info: { ...info, architecture: 'arm64' } })).status, 200);
    // GitLab keeps at most 64 characters of a system id: a longer one is a bad request, never a stored manager.
    const tooLong = await asRunner('POST', '/runners/verify', { token, system_id: `s_${'x'.repeat(63)}`, info });
    assert.equal(tooLong.status, 400, tooLong.text);
    assert.equal((await asRunner('POST', '/jobs/request', { token, system_id: `s_${'x'.repeat(63)}`, info })).status, 400);

    const managers = await gantry.api('GET', `/runners/${id}/managers`);
    assert.equal(managers.status, 200);
    assert.deepEqual(managers.list.map((manager) => manager.system_id).sort(), ['r_ABCDEFGHijkl', 's_0123456789ab']);
    const first = managers.list.find((manager) => manager.system_id === 's_0123456789ab') ?? {};
    assert.deepEqual(Object.keys(first), ['id', 'system_id', 'version', 'revision', 'platform', 'architecture', 'created_at', 'contacted_at', 'ip_address', 'status']);
    assert.deepEqual([first.version, first.revision, first.platform, first.architecture, first.ip_address, first.status], ['18.11.0', 'a1b2c3d4', 'linux', 'amd64', '127.0.0.1', 'online']);

    // A job request of the same host updates its manager; one without system_id is the legacy manager.
    const request = await asRunner('POST', '/jobs/request', { token, system_id: 's_0123456789ab', info: { ...info, version: '18.11.1' } });
    assert.equal(request.status, 204);
    assert.equal((await asRunner('POST', '/jobs/request', { token, info: { ...info, version: '13.12.0' } })).status, 204);
    const after = (await gantry.api('GET', `/runners/${id}/managers`)).list;
    assert.deepEqual(after.map((manager) => [manager.system_id, manager.version]).sort(), [['<legacy>', '13.12.0'], ['r_ABCDEFGHijkl', '18.11.0'], ['s_0123456789ab', '18.11.1']]);
    assert.equal((await gantry.api('GET', `/runners/${id}/managers`, { token: developer.token })).status, 200, 'shared runners show to anyone signed in');
  });

  it('DELETE /runners/managers removes one host: 204, then 404; 403 for an unknown token', async () => {
    const { id, token } = await createInstanceRunner();
    assert.equal((await asRunner('POST', '/runners/verify', { token, system_id: 's_aaaaaaaaaaaa' })).status, 200);
    assert.equal((await asRunner('POST', '/runners/verify', { token, system_id: 's_bbbbbbbbbbbb' })).status, 200);
    const removed = await asRunner('DELETE', '/runners/managers', { token, system_id: 's_aaaaaaaaaaaa' });
    assert.deepEqual([removed.status, removed.text], [204, '']);
    assert.deepEqual((await gantry.api('GET', `/runners/${id}/managers`)).list.map((manager) => manager.system_id), ['s_bbbbbbbbbbbb']);
    const again = await asRunner('DELETE', '/runners/managers', { token, system_id: 's_aaaaaaaaaaaa' });
    assert.deepEqual([again.status, again.json], [404, { message: '404 Runner manager not found Not Found' }]);
    assert.deepEqual((await asRunner('DELETE', '/runners/managers', { token: 'glrt-nothing', system_id: 's_bbbbbbbbbbbb' })).json, { message: '403 Forbidden' });
    const missing = await asRunner('DELETE', '/runners/managers', { token });
    assert.deepEqual([missing.status, missing.json], [400, { error: 'system_id is missing' }]);
    assert.equal((await gantry.api('GET', `/runners/${id}`)).status, 200, 'the runner itself stays');
  });

  it('the runner resets its own token: 201 {token, token_expires_at}, the old token stops at once', async () => {
    const { id, token } = await createInstanceRunner();
    const reset = await asRunner('POST', '/runners/reset_authentication_token', { token });
    assert.equal(reset.status, 201);
    assert.deepEqual(Object.keys(reset.json), ['token', 'token_expires_at']);
    const next = String(reset.json.token);
    assert.match(next, /^glrt-[\w-]{20}$/, 'a created runner keeps its glrt- prefix');
    assert.notEqual(next, token);
    assert.equal((await asRunner('POST', '/runners/verify', { token })).status, 403);
    assert.deepEqual((await asRunner('POST', '/runners/verify', { token: next })).json, { id, token: next, token_expires_at: null });
    assert.equal((await asRunner('POST', '/runners/reset_authentication_token', { token })).status, 403);
  });

  it('administrators and owners reset a runner token by id; others may not', async () => {
    const { id, token } = await createInstanceRunner();
    const byAdmin = await gantry.api('POST', `/runners/${id}/reset_authentication_token`);
    assert.equal(byAdmin.status, 201, byAdmin.text);
    assert.equal((await asRunner('POST', '/runners/verify', { token })).status, 403);
    assert.equal((await asRunner('POST', '/runners/verify', { token: String(byAdmin.json.token) })).status, 200);
    const shared = await gantry.api('POST', `/runners/${id}/reset_authentication_token`, { token: owner.token });
    assert.deepEqual([shared.status, shared.json], [403, { message: '403 Forbidden - Runner is shared' }]);

    const projectRunner = await gantry.api('POST', '/user/runners', { token: owner.token, body: { runner_type: 'project_type', project_id: projectId } });
    const projectRunnerId = Number(projectRunner.json.id);
    assert.equal((await gantry.api('POST', `/runners/${projectRunnerId}/reset_authentication_token`, { token: owner.token })).status, 201);
    assert.equal((await gantry.api('POST', `/runners/${projectRunnerId}/reset_authentication_token`, { token: developer.token })).status, 403);
    assert.equal((await gantry.api('POST', '/runners/999999/reset_authentication_token')).status, 404);

    // A runner registered with a registration token keeps plain tokens.
    const settings = (await gantry.api('GET', '/application/settings')).json;
    const legacy = await asRunner('POST', '/runners', { token: String(settings.runners_registration_token), description: 'legacy' });
    const legacyReset = await gantry.api('POST', `/runners/${String(legacy.json.id)}/reset_authentication_token`);
    assert.match(String(legacyReset.json.token), /^[\w-]{20}$/);
  });

  it('tokens expire as the settings say, and an expired token authenticates nothing', async () => {
    const set = await gantry.api('PUT', '/application/settings', { body: { runner_token_expiration_interval: 7200, project_runner_token_expiration_interval: 86400 } });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.json.runner_token_expiration_interval, 7200);
    const tooShort = await gantry.api('PUT', '/application/settings', { body: { group_runner_token_expiration_interval: 60 } });
    assert.equal(tooShort.status, 400);
    try {
      const before = Date.now();
      const { id, token, expiresAt } = await createInstanceRunner();
      const expiry = Date.parse(String(expiresAt));
      assert.ok(expiry >= before + 7200_000 && expiry <= Date.now() + 7200_000, `instance runner token expires in 2 hours: ${String(expiresAt)}`);
      const projectRunner = await gantry.api('POST', '/user/runners', { token: owner.token, body: { runner_type: 'project_type', project_id: projectId } });
      const projectExpiry = Date.parse(String(projectRunner.json.token_expires_at));
      assert.ok(projectExpiry >= before + 86_400_000, 'project runners take their own interval');
      const reset = await asRunner('POST', '/runners/reset_authentication_token', { token });
      assert.ok(Date.parse(String(reset.json.token_expires_at)) >= expiry, 'a reset token expires counted from the reset');

      await gantry.coordinator.context.stores.runners.update(id, { token_expires_at: new Date(Date.now() - 1000).toISOString() });
      const next = String(reset.json.token);
      assert.equal((await asRunner('POST', '/runners/verify', { token: next })).status, 403);
      assert.equal((await asRunner('POST', '/jobs/request', { token: next })).status, 403);
      assert.equal((await asRunner('POST', '/runners/reset_authentication_token', { token: next })).status, 403);
    } finally {
      await gantry.api('PUT', '/application/settings', { body: { runner_token_expiration_interval: null, project_runner_token_expiration_interval: null } });
    }
  });

  it('registration with a registration token takes paused and maintenance_note', async () => {
    const settings = (await gantry.api('GET', '/application/settings')).json;
    const registered = await asRunner('POST', '/runners', {
      token: String(settings.runners_registration_token), description: 'noted', maintenance_note: 'replace disk', paused: true, run_untagged: true, locked: false,
    });
    assert.equal(registered.status, 201, registered.text);
    const details = (await gantry.api('GET', `/runners/${String(registered.json.id)}`)).json;
    assert.deepEqual([details.active, details.paused, details.maintenance_note], [false, true, 'replace disk']);
    const deprecated = await asRunner('POST', '/runners', { token: String(settings.runners_registration_token), maintainer_note: 'old spelling', active: true });
    assert.equal((await gantry.api('GET', `/runners/${String(deprecated.json.id)}`)).json.maintenance_note, 'old spelling');
    const long = await asRunner('POST', '/runners', { token: String(settings.runners_registration_token), maintenance_note: 'x'.repeat(1025) });
    assert.deepEqual([long.status, long.json], [400, { message: { maintenance_note: ['is too long (maximum is 1024 characters)'] } }]);

    const updated = await gantry.api('PUT', `/runners/${String(registered.json.id)}`, { body: { paused: false, maintenance_note: 'disk replaced' } });
    assert.deepEqual([updated.status, updated.json.active, updated.json.maintenance_note], [200, true, 'disk replaced']);
  });
});
