import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { PROJECT_UPDATE_PARAMETERS } from '../../src/coordinator/services/namespaces/project-attributes.ts';
import { SETTINGS_SCHEMA } from '../../src/coordinator/services/instance/settings/schema.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

function ed25519Key(): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(String(publicKey.export({ format: 'jwk' }).x), 'base64url');
  const field = (bytes: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, bytes.length]), bytes]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64')} empty@test`;
}

const atLeastOne = (...names: string[]) => ({ error: `${names.join(', ')} are missing, at least one parameter must be provided` });

/**
 * Every PUT route with nothing to change: GitLab's 400 where its API declares
 * `at_least_one_of` (or a required parameter), else 200 with the resource unchanged.
 * Never a 500 (an UPDATE with an empty SET).
 */
describe('updates with nothing to change', () => {
  let gantry: TestCoordinator;
  let member: TestUser;
  let groupId: number;
  let projectId: number;
  let releases: string;
  let linkId: number;

  before(async () => {
    gantry = await startTestCoordinator();
    member = await makeUser(gantry, 'member');
    groupId = (await makeGroup(gantry, 'team')).id;
    projectId = (await makeProjectWithRepository(gantry, groupId, 'app', { withReadme: true })).id;
    await addMember(gantry, { type: 'project', id: projectId }, member.id, 30);
    await addMember(gantry, { type: 'namespace', id: groupId }, member.id, 30);
    releases = `/projects/${projectId}/releases`;
    const release = await gantry.api('POST', releases, { body: { tag_name: 'v1', ref: 'main', assets: { links: [{ name: 'bin', url: 'https://example.com/bin' }] } } });
    assert.equal(release.status, 201, release.text);
    linkId = Number((release.json.assets as { links: Array<{ id: number }> }).links[0]?.id);
  });
  after(() => gantry.close());

  const put = (path: string, body: Record<string, unknown> = {}) => gantry.api('PUT', path, { body });

  it('PUT /projects/:id/releases/:tag/assets/links/:link_id: name or url required', async () => {
    const link = `${releases}/v1/assets/links/${linkId}`;
    assert.deepEqual(await put(link).then((r) => [r.status, r.json]), [400, atLeastOne('name', 'url')]);
    assert.deepEqual((await put(link, { link_type: 'image' })).json, atLeastOne('name', 'url'), 'as in GitLab, link_type alone is not enough');
    const renamed = await put(link, { name: 'binary' });
    assert.deepEqual([renamed.status, renamed.json.name, renamed.json.url], [200, 'binary', 'https://example.com/bin']);
  });

  it('PUT /projects/:id: at least one of the editable attributes', async () => {
    const empty = await put(`/projects/${projectId}`);
    assert.deepEqual([empty.status, empty.json], [400, atLeastOne(...PROJECT_UPDATE_PARAMETERS)]);
    assert.equal((await put(`/projects/${projectId}`, { lfs_enabled: true })).status, 200);
    assert.equal((await gantry.api('PUT', `/projects/${projectId}`, { body: {}, token: null })).status, 401, 'authentication comes first');
  });

  it('PUT /application/settings: at least one setting', async () => {
    const empty = await put('/application/settings');
    assert.deepEqual([empty.status, empty.json], [400, atLeastOne(...SETTINGS_SCHEMA.map((setting) => setting.name))]);
    assert.equal((await put('/application/settings', { after_sign_up_text: 'Welcome' })).status, 200);
  });

  it('PUT /projects/:id/deploy_keys/:key_id: title or can_push', async () => {
    const added = await gantry.api('POST', `/projects/${projectId}/deploy_keys`, { body: { title: 'ci', key: ed25519Key() } });
    assert.equal(added.status, 201, added.text);
    assert.deepEqual((await put(`/projects/${projectId}/deploy_keys/${added.json.id}`)).json, atLeastOne('title', 'can_push'));
  });

  it('PUT /projects/:id/releases/:tag: "params is empty", as GitLab\'s update service says', async () => {
    const empty = await put(`${releases}/v1`);
    assert.deepEqual([empty.status, empty.json], [400, { message: 'params is empty' }]);
    assert.equal((await put(`${releases}/v9`)).status, 404, 'an unknown release is still a 404 first');
    assert.equal((await put(`${releases}/v1`, { name: 'One' })).json.name, 'One');
  });

  it('routes with a required parameter answer it missing', async () => {
    const missing = async (path: string) => (await put(path)).json;
    assert.deepEqual(await missing(`/projects/${projectId}/members/${member.id}`), { error: 'access_level is missing' });
    assert.deepEqual(await missing(`/groups/${groupId}/members/${member.id}`), { error: 'access_level is missing' });
    for (const subject of [`projects/${projectId}`, `groups/${groupId}`, `users/${member.id}`]) {
      assert.deepEqual(await missing(`/${subject}/custom_attributes/colour`), { error: 'value is missing' });
    }
    assert.deepEqual(await missing(`/projects/${projectId}/repository/tags/v1/release`), { error: 'description is missing' });
    assert.deepEqual(await missing(`/projects/${projectId}/transfer`), { error: 'namespace is missing' });
    const file = await put(`/projects/${projectId}/repository/files/README.md`);
    assert.equal(file.status, 400, file.text);
  });

  it('routes without required parameters answer the unchanged resource', async () => {
    const group = await put(`/groups/${groupId}`);
    assert.deepEqual([group.status, group.json.path, group.json.visibility], [200, 'team', 'private']);
    const user = await put(`/users/${member.id}`);
    assert.deepEqual([user.status, user.json.username, user.json.name], [200, 'member', 'User member']);
    assert.equal((await gantry.api('POST', `/projects/${projectId}/repository/branches`, { body: { branch: 'feature', ref: 'main' } })).status, 201);
    const protectedBranch = await put(`/projects/${projectId}/repository/branches/feature/protect`);
    assert.deepEqual([protectedBranch.status, protectedBranch.json.protected], [200, true]);
    const unprotected = await put(`/projects/${projectId}/repository/branches/feature/unprotect`);
    assert.deepEqual([unprotected.status, unprotected.json.protected], [200, false]);
  });

  it('the stores answer the current row for an update with no changes', async () => {
    const { stores } = gantry.coordinator.context;
    const release = await stores.releases.find(projectId, 'v1');
    assert.ok(release);
    const link = await stores.releaseLinks.find(release.id, linkId);
    assert.ok(link);
    assert.deepEqual(await stores.releaseLinks.update(link.id, {}), link);
    assert.deepEqual(await stores.releaseLinks.update(link.id, { name: undefined }), link);
    const project = await stores.projects.findById(projectId);
    assert.deepEqual(await stores.projects.update(projectId, {}), project);
  });
});
