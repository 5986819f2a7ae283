import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup, makeProject, makeUser, type TestUser } from './groups-fixtures.ts';

/**
 * The runner's side of registration (reference/runner-protocol.md §2), with the bodies
 * gitlab-runner v13.12 sends: `register` (token, description, tag_list as a comma string,
 * run_untagged, locked, active, info with only the network client's features), `verify`
 * and `unregister` (DELETE with a JSON body). The runner sends no user credential.
 */
const INFO = {
  name: 'gitlab-runner',
  version: '13.12.0',
  revision: '7a6612da',
  platform: 'linux',
  architecture: 'amd64',
  features: {
    variables: false, image: false, services: false, artifacts: false, cache: false, shared: false, upload_multiple_artifacts: false,
    upload_raw_artifacts: false, session: false, terminal: false, refspecs: false, masking: false, proxy: false, raw_variables: false,
    artifacts_exclude: false, multi_build_steps: false, trace_reset: true, trace_checksum: true, trace_size: true, vault_secrets: false,
    cancelable: true, return_exit_code: false,
  },
};

function registerBody(token: string, extra: Record<string, unknown> = {}) {
  return { info: INFO, token, description: 'wiretest', tag_list: 'docker,linux', run_untagged: true, locked: true, active: true, ...extra };
}

describe('runner registration protocol', () => {
  let gantry: TestCoordinator;
  let alice: TestUser;
  let projectId: number;
  let projectToken: string;
  let groupId: number;

  /** A request as gitlab-runner makes it: JSON body, its user agent, no PRIVATE-TOKEN. */
  const runner = (method: 'POST' | 'DELETE', path: string, body: unknown) =>
    gantry.api(method, path, { token: null, body, headers: { 'user-agent': 'gitlab-runner 13.12.0 (13-12-stable; go1.13.8; linux/amd64)', accept: 'application/json' } });

  const instanceToken = async () => String((await gantry.api('GET', '/application/settings')).json.runners_registration_token);

  before(async () => {
    gantry = await startTestCoordinator();
    alice = await makeUser(gantry, 'alice', { canCreateGroup: true });
    const group = await makeGroup(gantry, 'team', { token: alice.token });
    groupId = group.id;
    const project = await makeProject(gantry, groupId, 'app');
    projectId = project.id;
    projectToken = project.runners_token;
  });
  after(() => gantry.close());

  it('generates the instance registration token on first start and shows it to administrators only', async () => {
    const token = await instanceToken();
    assert.match(token, /^GR1348941[\w-]{20}$/);
    const asAlice = await gantry.api('GET', '/application/settings', { token: alice.token });
    assert.equal(asAlice.status, 403);
    const ignored = await gantry.api('PUT', '/application/settings', { body: { runners_registration_token: 'chosen', signup_enabled: true } });
    assert.equal(ignored.status, 200);
    assert.equal(ignored.json.runners_registration_token, token, 'the token is not a setting PUT changes');
  });

  it('registers a shared runner with the instance token: 201 {id, token, token_expires_at} as application/json', async () => {
    const response = await runner('POST', '/runners', registerBody(await instanceToken()));
    assert.equal(response.status, 201);
    assert.equal(response.headers['content-type'], 'application/json');
    // GitLab 16's RunnerRegistrationDetails; runner 13.12 reads only `token`.
    assert.deepEqual(Object.keys(response.json), ['id', 'token', 'token_expires_at']);
    assert.equal(response.json.token_expires_at, null);
    assert.equal(typeof response.json.id, 'number');
    assert.match(String(response.json.token), /^[\w-]{20}$/);

    const details = await gantry.api('GET', `/runners/${String(response.json.id)}`);
    assert.equal(details.status, 200);
    assert.equal(details.json.runner_type, 'instance_type');
    assert.equal(details.json.is_shared, true);
    assert.equal(details.json.description, 'wiretest');
    assert.deepEqual(details.json.tag_list, ['docker', 'linux']);
    assert.equal(details.json.locked, true);
    assert.equal(details.json.active, true);
    assert.equal(details.json.version, '13.12.0');
    assert.equal(details.json.revision, '7a6612da');
    assert.equal(details.json.platform, 'linux');
    assert.equal(details.json.architecture, 'amd64');
    assert.equal(details.json.name, 'gitlab-runner');
    assert.equal(details.json.ip_address, '127.0.0.1');
    assert.equal(details.json.contacted_at, null, 'registration is no contact');
    assert.equal(details.json.status, 'not_connected');
    assert.equal('token' in details.json, false, 'runner tokens are kept as digests only');
  });

  it('registers a project runner with the project token, serving that project', async () => {
    const response = await runner('POST', '/runners', registerBody(projectToken, { tag_list: ['ruby', ' ruby ', 'pg'] }));
    assert.equal(response.status, 201);
    const details = (await gantry.api('GET', `/runners/${String(response.json.id)}`)).json;
    assert.equal(details.runner_type, 'project_type');
    assert.deepEqual(details.tag_list, ['pg', 'ruby']);
    assert.deepEqual((details.projects as Array<{ id: number }>).map((project) => project.id), [projectId]);
    assert.deepEqual(details.groups, []);
  });

  it('registers a group runner with the group token its owner resets', async () => {
    const reset = await gantry.api('POST', `/groups/${groupId}/runners/reset_registration_token`, { token: alice.token });
    assert.equal(reset.status, 201);
    assert.deepEqual(Object.keys(reset.json), ['token', 'token_expires_at']);
    const response = await runner('POST', '/runners', registerBody(String(reset.json.token)));
    assert.equal(response.status, 201);
    const details = (await gantry.api('GET', `/runners/${String(response.json.id)}`)).json;
    assert.equal(details.runner_type, 'group_type');
    assert.deepEqual((details.groups as Array<{ id: number; web_url: string }>).map((group) => [group.id, group.web_url]), [[groupId, 'http://gantry.test/groups/team']]);

    const again = await gantry.api('POST', `/groups/${groupId}/runners/reset_registration_token`, { token: alice.token });
    assert.equal((await runner('POST', '/runners', registerBody(String(reset.json.token)))).status, 403, 'the old group token is gone');
    assert.equal((await runner('POST', '/runners', registerBody(String(again.json.token)))).status, 201);
    const stranger = await makeUser(gantry, 'stranger');
    assert.equal((await gantry.api('POST', `/groups/${groupId}/runners/reset_registration_token`, { token: stranger.token })).status, 404);
  });

  it('refuses unknown registration tokens with 403 and a missing one with 400', async () => {
    for (const token of ['nope', '', `${projectToken}x`]) {
      const response = await runner('POST', '/runners', registerBody(token));
      assert.equal(response.status, 403, token);
      assert.deepEqual(response.json, { message: '403 Forbidden' });
    }
    const missing = await runner('POST', '/runners', { description: 'x' });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.json, { error: 'token is missing' });
  });

  it('validates what GitLab validates: untagged, timeout, access level, tag list', async () => {
    const token = await instanceToken();
    const untagged = await runner('POST', '/runners', registerBody(token, { tag_list: '', run_untagged: false }));
    assert.equal(untagged.status, 400);
    assert.deepEqual(untagged.json, { message: { tags_list: ['can not be empty when runner is not allowed to pick untagged jobs'] } });
    const timeout = await runner('POST', '/runners', registerBody(token, { maximum_timeout: 599 }));
    assert.deepEqual([timeout.status, timeout.json], [400, { message: { maximum_timeout: ['needs to be at least 10 minutes'] } }]);
    const level = await runner('POST', '/runners', registerBody(token, { access_level: 'everyone' }));
    assert.deepEqual([level.status, level.json], [400, { error: 'access_level does not have a valid value' }]);
    const tags = await runner('POST', '/runners', registerBody(token, { tag_list: { a: 1 } }));
    assert.deepEqual([tags.status, tags.json], [400, { error: 'tag_list is invalid' }]);
    const info = await runner('POST', '/runners', registerBody(token, { info: 'gitlab-runner' }));
    assert.deepEqual([info.status, info.json], [400, { error: 'info is invalid' }]);
    // An unknown token is refused before the body's values are judged, as GitLab does.
    assert.equal((await runner('POST', '/runners', registerBody('nope', { maximum_timeout: 1 }))).status, 403);
  });

  it('registers paused, protected-only and time-capped runners', async () => {
    const response = await runner('POST', '/runners', registerBody(await instanceToken(), { active: false, access_level: 'ref_protected', maximum_timeout: 3600 }));
    assert.equal(response.status, 201);
    const details = (await gantry.api('GET', `/runners/${String(response.json.id)}`)).json;
    assert.deepEqual([details.active, details.paused, details.access_level, details.maximum_timeout], [false, true, 'ref_protected', 3600]);
  });

  it('verifies a runner token (200 {id, token, token_expires_at}, and the runner is heard from) and refuses unknown ones (403)', async () => {
    const registered = await runner('POST', '/runners', registerBody(projectToken));
    const token = String(registered.json.token);
    const verified = await runner('POST', '/runners/verify', { token });
    assert.equal(verified.status, 200);
    assert.deepEqual(verified.json, { id: registered.json.id, token, token_expires_at: null });
    const details = (await gantry.api('GET', `/runners/${String(registered.json.id)}`)).json;
    assert.equal(details.status, 'online');
    assert.equal(details.online, true);
    assert.ok(Date.now() - Date.parse(String(details.contacted_at)) < 60_000);
    const unknown = await runner('POST', '/runners/verify', { token: 'not-a-runner-token' });
    assert.deepEqual([unknown.status, unknown.json], [403, { message: '403 Forbidden' }]);
    assert.deepEqual((await runner('POST', '/runners/verify', {})).json, { error: 'token is missing' });
  });

  it('unregisters with DELETE and a JSON body: 204, then 403 for the same token', async () => {
    const registered = await runner('POST', '/runners', registerBody(projectToken));
    const token = String(registered.json.token);
    const removed = await runner('DELETE', '/runners', { token });
    assert.equal(removed.status, 204);
    assert.equal(removed.text, '');
    assert.equal((await runner('DELETE', '/runners', { token })).status, 403);
    assert.equal((await runner('POST', '/runners/verify', { token })).status, 403);
    assert.equal((await gantry.api('GET', `/runners/${String(registered.json.id)}`)).status, 404);
  });

  it('resets the instance and project registration tokens: the old ones stop registering', async () => {
    const oldInstance = await instanceToken();
    assert.equal((await gantry.api('POST', '/runners/reset_registration_token', { token: alice.token })).status, 403);
    const reset = await gantry.api('POST', '/runners/reset_registration_token');
    assert.equal(reset.status, 201);
    assert.notEqual(reset.json.token, oldInstance);
    assert.equal(await instanceToken(), reset.json.token);
    assert.equal((await runner('POST', '/runners', registerBody(oldInstance))).status, 403);
    assert.equal((await runner('POST', '/runners', registerBody(String(reset.json.token)))).status, 201);

    const projectReset = await gantry.api('POST', `/projects/${projectId}/runners/reset_registration_token`);
    assert.equal(projectReset.status, 201);
    assert.equal((await runner('POST', '/runners', registerBody(projectToken))).status, 403);
    assert.equal((await runner('POST', '/runners', registerBody(String(projectReset.json.token)))).status, 201);
    assert.equal((await gantry.api('GET', `/projects/${projectId}`)).json.runners_token, projectReset.json.token);
  });
});
