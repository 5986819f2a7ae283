import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

/**
 * An unmodified GitLab client (@gitbeaker/rest) against a coordinator listening on a real
 * port: what it sends and how it reads answers (pagination headers, Link, errors) is what
 * GitLab's users send and read.
 */

/** An OpenSSH `ssh-ed25519 AAAA...` public key. */
function ed25519PublicKey(comment: string): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(String(publicKey.export({ format: 'jwk' }).x), 'base64url');
  const field = (data: Buffer): Buffer => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    return Buffer.concat([length, data]);
  };
  const blob = Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]);
  return `ssh-ed25519 ${blob.toString('base64')} ${comment}`;
}

/** The HTTP status of a failed gitbeaker call. */
async function failureStatus(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (error) {
    const response = (error as { cause?: { response?: { status?: number } } }).cause?.response;
    if (response?.status !== undefined) return response.status;
    throw error;
  }
  assert.fail('the call succeeded');
}

function record(value: unknown): Record<string, unknown> {
  assert.ok(value && typeof value === 'object' && !Array.isArray(value), `not an object: ${JSON.stringify(value)}`);
  return value as Record<string, unknown>;
}

describe('GitLab client (@gitbeaker/rest) against a listening coordinator', () => {
  let gantry: TestCoordinator;
  let host: string;
  let root: InstanceType<typeof Gitlab>;
  const created: { userId?: number; userToken?: string; otherToken?: string; groupId?: number; projectIds: number[] } = { projectIds: [] };

  before(async () => {
    gantry = await startTestCoordinator();
    await gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const address = gantry.coordinator.app.server.address() as AddressInfo;
    host = `http://127.0.0.1:${address.port}`;
    root = new Gitlab({ host, token: gantry.rootToken });
  });
  after(() => gantry.close());

  it('reads the current user and refuses a wrong token with 401', async () => {
    const me = record(await root.Users.showCurrentUser());
    assert.equal(me.username, 'root');
    assert.equal(me.is_admin, true);
    const stranger = new Gitlab({ host, token: 'not-a-real-token' });
    assert.equal(await failureStatus(stranger.Users.showCurrentUser()), 401);
  });

  it('shows and edits application settings', async () => {
    const settings = record(await root.ApplicationSettings.show());
    assert.equal(settings.default_projects_limit, 100000);
    assert.equal(settings.signup_enabled, true);
    const edited = record(await root.ApplicationSettings.edit({ signupEnabled: false, maxAttachmentSize: 20 }));
    assert.equal(edited.signup_enabled, false);
    assert.equal(edited.max_attachment_size, 20);
    assert.equal(await failureStatus(root.ApplicationSettings.edit({ defaultBranchProtection: 9 })), 400);
    await root.ApplicationSettings.edit({ signupEnabled: true });
  });

  it('creates users', async () => {
    const user = record(await root.Users.create({ email: 'beaker@example.com', username: 'beaker', name: 'Beaker', password: 'secret-password-1', skipConfirmation: true }));
    assert.equal(user.username, 'beaker');
    assert.equal(typeof user.id, 'number');
    created.userId = user.id as number;
    created.userToken = await gantry.coordinator.context.accounts.issueToken(created.userId, 'gitbeaker');
    const other = record(await root.Users.create({ email: 'bunsen@example.com', username: 'bunsen', name: 'Bunsen', password: 'secret-password-2', skipConfirmation: true }));
    created.otherToken = await gantry.coordinator.context.accounts.issueToken(other.id as number, 'gitbeaker');

    const found = await root.Users.all({ username: 'beaker' });
    assert.deepEqual(found.map((u) => u.id), [created.userId]);
    const shown = record(await root.Users.show(created.userId));
    assert.equal(shown.name, 'Beaker');
  });

  it('adds SSH keys for a user and lists them for the user and the administrator', async () => {
    assert.ok(created.userId && created.userToken, 'users were created');
    const key = ed25519PublicKey('beaker@laptop');
    const added = record(await root.UserSSHKeys.create('laptop', key, { userId: created.userId }));
    assert.equal(added.title, 'laptop');
    assert.equal(String(added.key).split(' ').slice(0, 2).join(' '), key.split(' ').slice(0, 2).join(' '));
    const byAdmin = await root.UserSSHKeys.all({ userId: created.userId });
    assert.deepEqual(byAdmin.map((k) => k.title), ['laptop']);
    const asUser = new Gitlab({ host, token: created.userToken });
    const own = await asUser.UserSSHKeys.all();
    assert.deepEqual(own.map((k) => k.id), [added.id]);
    const second = record(await asUser.UserSSHKeys.create('desktop', ed25519PublicKey('beaker@desktop')));
    assert.equal(record(await asUser.UserSSHKeys.show(second.id as number)).title, 'desktop');
  });

  it('creates a group', async () => {
    const group = record(await root.Groups.create('Beaker Group', 'beaker-group', { visibility: 'private', description: 'from gitbeaker' }));
    assert.equal(group.full_path, 'beaker-group');
    assert.equal(group.visibility, 'private');
    created.groupId = group.id as number;
    assert.equal(record(await root.Groups.show('beaker-group')).id, created.groupId);
    assert.equal(await failureStatus(root.Groups.create('Beaker Group', 'beaker-group')), 400);
  });

  it('creates projects in the group', async () => {
    assert.ok(created.groupId, 'the group was created');
    for (const name of ['alpha', 'bravo', 'charlie', 'delta', 'echo']) {
      const project = record(await root.Projects.create({ name, namespaceId: created.groupId }));
      assert.equal(project.path_with_namespace, `beaker-group/${name}`);
      assert.equal(record(project.namespace).id, created.groupId);
      created.projectIds.push(project.id as number);
    }
    const inGroup = await root.Groups.allProjects(created.groupId);
    assert.equal(inGroup.length, 5);
  });

  it('lists projects page by page through the Link header', async () => {
    assert.equal(created.projectIds.length, 5, 'projects were created');
    const everything = await root.Projects.all({ perPage: 2 });
    assert.deepEqual(everything.map((p) => p.id).sort((a, b) => a - b), [...created.projectIds].sort((a, b) => a - b), 'all pages followed');
    const capped = await root.Projects.all({ perPage: 2, maxPages: 2 });
    assert.equal(capped.length, 4);
    const second = await root.Projects.all({ perPage: 2, page: 2, pagination: 'offset', showExpanded: true });
    assert.equal(second.data.length, 2);
    assert.deepEqual(second.paginationInfo, { total: 5, next: 3, current: 2, previous: 1, perPage: 2, totalPages: 3 });
    const last = await root.Projects.all({ perPage: 2, page: 3, pagination: 'offset', showExpanded: true });
    assert.equal(last.data.length, 1);
    assert.equal(last.paginationInfo.next, null);
  });

  it('shows a project by its full path and edits it', async () => {
    const shown = record(await root.Projects.show('beaker-group/alpha'));
    assert.equal(shown.id, created.projectIds[0]);
    assert.equal(shown.name_with_namespace, 'Beaker Group / alpha');
    const edited = record(await root.Projects.edit(shown.id as number, { description: 'edited by gitbeaker', issuesAccessLevel: 'disabled' }));
    assert.equal(edited.description, 'edited by gitbeaker');
    assert.equal(edited.issues_enabled, false);
    // A project can be no more visible than its (private) group.
    assert.equal(await failureStatus(root.Projects.edit(shown.id as number, { visibility: 'internal' })), 400);
    assert.equal(await failureStatus(root.Projects.show('beaker-group/no-such-project')), 404);
  });

  it('adds a project member, who can then read the private project', async () => {
    assert.ok(created.userId && created.userToken && created.otherToken, 'users were created');
    const projectId = created.projectIds[1] as number;
    const asUser = new Gitlab({ host, token: created.userToken });
    assert.equal(await failureStatus(asUser.Projects.show(projectId)), 404, 'private and not a member');
    const member = record(await root.ProjectMembers.add(projectId, 30, { userId: created.userId }));
    assert.equal(member.access_level, 30);
    assert.equal(member.username, 'beaker');
    const members = await root.ProjectMembers.all(projectId);
    assert.ok(members.some((m) => m.id === created.userId), 'the member is listed');
    assert.equal(record(await asUser.Projects.show(projectId)).id, projectId);
    const outsider = new Gitlab({ host, token: created.otherToken });
    assert.equal(await failureStatus(outsider.Projects.show(projectId)), 404);
  });

  it('adds a group member, who then sees the group', async () => {
    assert.ok(created.groupId && created.userId && created.otherToken, 'users and the group were created');
    const outsider = new Gitlab({ host, token: created.otherToken });
    assert.equal(await failureStatus(outsider.Groups.show(created.groupId)), 404);
    const bunsen = (await root.Users.all({ username: 'bunsen' }))[0];
    assert.ok(bunsen, 'bunsen is listed');
    await root.GroupMembers.add(created.groupId, 20, { userId: bunsen.id });
    assert.equal(record(await outsider.Groups.show(created.groupId)).full_path, 'beaker-group');
  });

  it('stars a project', async () => {
    const starred = record(await root.Projects.star(created.projectIds[2] as number));
    assert.equal(starred.star_count, 1);
  });

  it('sets, reads and removes custom attributes on a user', async () => {
    const set = record(await root.UserCustomAttributes.set(1, 'team', 'blue'));
    assert.deepEqual(set, { key: 'team', value: 'blue' });
    assert.deepEqual(await root.UserCustomAttributes.all(1), [{ key: 'team', value: 'blue' }]);
    assert.deepEqual(record(await root.UserCustomAttributes.show(1, 'team')), { key: 'team', value: 'blue' });
    await root.UserCustomAttributes.remove(1, 'team');
    assert.equal(await failureStatus(root.UserCustomAttributes.show(1, 'team')), 404);
    assert.equal(await failureStatus(root.UserCustomAttributes.show(999999, 'team')), 404);
  });

  it('sets custom attributes on a group, by id or full path', async () => {
    assert.ok(created.groupId, 'the group was created');
    await root.GroupCustomAttributes.set(created.groupId, 'tier', 'gold');
    assert.deepEqual(await root.GroupCustomAttributes.all('beaker-group'), [{ key: 'tier', value: 'gold' }]);
  });

  it('sets custom attributes on a project; administrators only', async () => {
    assert.ok(created.projectIds.length > 0 && created.userToken, 'projects and the user were created');
    await root.ProjectCustomAttributes.set('beaker-group/alpha', 'env', 'prod');
    assert.deepEqual(record(await root.ProjectCustomAttributes.show(created.projectIds[0] as number, 'env')), { key: 'env', value: 'prod' });
    const asUser = new Gitlab({ host, token: created.userToken });
    assert.equal(await failureStatus(asUser.ProjectCustomAttributes.all(created.projectIds[0] as number)), 403);
  });
});
