import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProject, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

const GROUP_FIELDS = [
  'avatar_url', 'description', 'full_name', 'full_path', 'id', 'lfs_enabled', 'name', 'parent_id', 'path',
  'request_access_enabled', 'visibility', 'web_url',
];

describe('groups: create, read, update, delete, transfer', () => {
  let gantry: TestCoordinator;
  let alice: TestUser;
  let bob: TestUser;
  let noGroups: TestUser;

  before(async () => {
    gantry = await startTestCoordinator();
    alice = await makeUser(gantry, 'alice');
    bob = await makeUser(gantry, 'bob');
    noGroups = await makeUser(gantry, 'nogroups', { canCreateGroup: false });
  });
  after(() => gantry.close());

  describe('POST /groups', () => {
    it('creates a group with every field, the creator as owner, and details', async () => {
      const created = await gantry.api('POST', '/groups', {
        token: alice.token,
        body: { name: 'Alpha Team', path: 'alpha', description: 'the alpha team', visibility: 'internal', lfs_enabled: false, request_access_enabled: true },
      });
      assert.equal(created.status, 201, created.text);
      const group = created.json;
      assert.deepEqual(Object.keys(group).sort(), GROUP_FIELDS, 'create answers the Group, not its details');
      assert.equal(typeof group.id, 'number');
      assert.equal(group.name, 'Alpha Team');
      assert.equal(group.path, 'alpha');
      assert.equal(group.description, 'the alpha team');
      assert.equal(group.visibility, 'internal');
      assert.equal(group.lfs_enabled, false);
      assert.equal(group.request_access_enabled, true);
      assert.equal(group.avatar_url, null);
      assert.equal(group.web_url, 'http://gantry.test/groups/alpha');
      assert.equal(group.full_name, 'Alpha Team');
      assert.equal(group.full_path, 'alpha');
      assert.equal(group.parent_id, null);

      const details = await gantry.api('GET', `/groups/${group.id}`, { token: alice.token });
      assert.deepEqual(Object.keys(details.json).sort(), [...GROUP_FIELDS, 'projects', 'shared_projects', 'shared_with_groups'].sort());
      assert.deepEqual(details.json.projects, []);
      assert.deepEqual(details.json.shared_projects, []);

      const members = await gantry.api('GET', `/groups/${group.id}/members`, { token: alice.token });
      assert.equal(members.status, 200);
      assert.deepEqual(members.list.map((member) => [member.username, member.access_level]), [['alice', 50]]);
    });

    it('accepts form fields and applies defaults (settings visibility, lfs on, access requests off)', async () => {
      const created = await gantry.api('POST', '/groups', { token: alice.token, form: { name: 'Beta', path: 'beta' } });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.visibility, 'private');
      assert.equal(created.json.lfs_enabled, true);
      assert.equal(created.json.request_access_enabled, false);
      assert.equal(created.json.description, '');
    });

    it('uses default_group_visibility from the application settings', async () => {
      const { settings } = gantry.coordinator.context;
      await settings.update({ default_group_visibility: 'internal' });
      try {
        const created = await gantry.api('POST', '/groups', { token: alice.token, body: { name: 'Gamma', path: 'gamma' } });
        assert.equal(created.json.visibility, 'internal');
      } finally {
        await settings.update({ default_group_visibility: 'private' });
      }
    });

    it('refuses restricted visibility levels to non-administrators only', async () => {
      const { settings } = gantry.coordinator.context;
      await settings.update({ restricted_visibility_levels: ['public'] });
      try {
        const refused = await gantry.api('POST', '/groups', { token: alice.token, body: { name: 'Open', path: 'open-one', visibility: 'public' } });
        assert.equal(refused.status, 400);
        assert.deepEqual(refused.body, { message: { visibility_level: ['public has been restricted by your GitLab administrator'] } });
        const admin = await gantry.api('POST', '/groups', { body: { name: 'Open', path: 'open-one', visibility: 'public' } });
        assert.equal(admin.status, 201);
      } finally {
        await settings.update({ restricted_visibility_levels: null });
      }
    });

    it('answers 400 for missing and malformed parameters', async () => {
      const cases: Array<[Record<string, unknown>, unknown]> = [
        [{ path: 'no-name' }, { error: 'name is missing' }],
        [{ name: 'No path' }, { error: 'path is missing' }],
        [{ name: 'x', path: 'x1', visibility: 'secret' }, { error: 'visibility does not have a valid value' }],
        [{ name: 'x', path: 'x2', lfs_enabled: 'maybe' }, { error: 'lfs_enabled is invalid' }],
        [{ name: 'x', path: 'x3', parent_id: 'abc' }, { error: 'parent_id is invalid' }],
      ];
      for (const [body, expected] of cases) {
        const response = await gantry.api('POST', '/groups', { token: alice.token, body });
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.deepEqual(response.body, expected);
      }
    });

    it('validates path and name like GitLab', async () => {
      const badPath = await gantry.api('POST', '/groups', { token: alice.token, body: { name: 'Bad', path: '-bad' } });
      assert.equal(badPath.status, 400);
      assert.deepEqual(Object.keys((badPath.json.message as Record<string, unknown>)), ['path']);
      const gitSuffix = await gantry.api('POST', '/groups', { token: alice.token, body: { name: 'Bad', path: 'repo.git' } });
      assert.equal(gitSuffix.status, 400);
      const reserved = await gantry.api('POST', '/groups', { token: alice.token, body: { name: 'Api', path: 'api' } });
      assert.deepEqual(reserved.body, { message: { path: ['api is a reserved name'] } });
      const badName = await gantry.api('POST', '/groups', { token: alice.token, body: { name: '-dash first', path: 'dash' } });
      assert.equal(badName.status, 400);
      assert.ok(Array.isArray((badName.json.message as Record<string, unknown>).name));
    });

    it('answers 400 "has already been taken" for a duplicate path (any case) or a username', async () => {
      for (const path of ['alpha', 'ALPHA', 'bob']) {
        const duplicate = await gantry.api('POST', '/groups', { token: alice.token, body: { name: 'Dup', path } });
        assert.equal(duplicate.status, 400, path);
        assert.deepEqual(duplicate.body, { message: { path: ['has already been taken'] } });
      }
    });

    it('needs a token, a valid token, and the right to create groups', async () => {
      const body = { name: 'Nope', path: 'nope' };
      assert.equal((await gantry.api('POST', '/groups', { token: null, body })).status, 401);
      const wrong = await gantry.api('POST', '/groups', { token: 'not-a-token', body });
      assert.equal(wrong.status, 401);
      assert.deepEqual(wrong.body, { message: '401 Unauthorized' });
      const refused = await gantry.api('POST', '/groups', { token: noGroups.token, body });
      assert.equal(refused.status, 403);
      assert.deepEqual(refused.body, { message: '403 Forbidden' });
    });
  });

  describe('subgroups', () => {
    let parent: { id: number; full_path: string };

    before(async () => {
      parent = await makeGroup(gantry, 'parent', { token: alice.token, name: 'Parent', visibility: 'internal' });
      await addMember(gantry, { type: 'namespace', id: parent.id }, bob.id, 40);
    });

    it('creates a nested group with full path and name, clamping the default visibility to the parent', async () => {
      await gantry.coordinator.context.settings.update({ default_group_visibility: 'public' });
      try {
        const created = await gantry.api('POST', '/groups', { token: alice.token, body: { name: 'Child', path: 'child', parent_id: parent.id } });
        assert.equal(created.status, 201, created.text);
        assert.equal(created.json.parent_id, parent.id);
        assert.equal(created.json.full_path, 'parent/child');
        assert.equal(created.json.full_name, 'Parent / Child');
        assert.equal(created.json.web_url, 'http://gantry.test/groups/parent/child');
        assert.equal(created.json.visibility, 'internal');
      } finally {
        await gantry.coordinator.context.settings.update({ default_group_visibility: 'private' });
      }
      const byPath = await gantry.api('GET', `/groups/${encodeURIComponent('parent/child')}`, { token: alice.token });
      assert.equal(byPath.status, 200);
      assert.equal(byPath.json.name, 'Child');
    });

    it('refuses a subgroup more open than its parent', async () => {
      const refused = await gantry.api('POST', '/groups', { token: alice.token, body: { name: 'Pub', path: 'pub', parent_id: parent.id, visibility: 'public' } });
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body, { message: { visibility_level: ['public is not allowed since the parent group has a internal visibility.'] } });
    });

    it('lets only owners of the parent create subgroups; unknown or unreadable parents are 404', async () => {
      const maintainer = await gantry.api('POST', '/groups', { token: bob.token, body: { name: 'B', path: 'b-sub', parent_id: parent.id } });
      assert.equal(maintainer.status, 403);
      const unknown = await gantry.api('POST', '/groups', { token: alice.token, body: { name: 'U', path: 'u-sub', parent_id: 999999 } });
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { message: '404 Group Not Found' });
      const secret = await makeGroup(gantry, 'secret-parent', { token: alice.token });
      const hidden = await gantry.api('POST', '/groups', { token: bob.token, body: { name: 'H', path: 'h-sub', parent_id: secret.id } });
      assert.equal(hidden.status, 404);
      // A user without can_create_group may still create subgroups where they own the parent.
      const owned = await makeGroup(gantry, 'nogroups-parent');
      await addMember(gantry, { type: 'namespace', id: owned.id }, noGroups.id, 50);
      const allowed = await gantry.api('POST', '/groups', { token: noGroups.token, body: { name: 'S', path: 's-sub', parent_id: owned.id } });
      assert.equal(allowed.status, 201, allowed.text);
    });

    it('allows the same path under different parents', async () => {
      const other = await makeGroup(gantry, 'other-parent', { token: alice.token });
      const nested = await gantry.api('POST', '/groups', { token: alice.token, body: { name: 'Child', path: 'child', parent_id: other.id } });
      assert.equal(nested.status, 201, nested.text);
      assert.equal(nested.json.full_path, 'other-parent/child');
    });
  });

  describe('GET /groups/:id', () => {
    let secret: { id: number };
    let open: { id: number };

    before(async () => {
      secret = await makeGroup(gantry, 'hidden', { token: alice.token });
      open = await makeGroup(gantry, 'open', { token: alice.token, visibility: 'public' });
      await makeProject(gantry, open.id, 'public-project', { visibility: 'public' });
      await makeProject(gantry, open.id, 'private-project', { visibility: 'private' });
      const elsewhere = await makeGroup(gantry, 'elsewhere', { visibility: 'public' });
      const shared = await makeProject(gantry, elsewhere.id, 'shared-project', { visibility: 'public' });
      await gantry.coordinator.context.db
        .insertInto('project_group_links')
        .values({ project_id: shared.id, group_id: open.id, group_access: 30, expires_at: null, created_at: new Date().toISOString() })
        .execute();
    });

    it('answers 404 Group Not Found to non-members and anonymous callers of a private group', async () => {
      for (const token of [bob.token, null]) {
        const response = await gantry.api('GET', `/groups/${secret.id}`, { token });
        assert.equal(response.status, 404);
        assert.deepEqual(response.body, { message: '404 Group Not Found' });
      }
      assert.equal((await gantry.api('GET', `/groups/${secret.id}`, { token: alice.token })).status, 200);
      assert.equal((await gantry.api('GET', `/groups/${secret.id}`)).status, 200, 'administrators read every group');
    });

    it('answers 404 for unknown ids and paths, 401 for a wrong token', async () => {
      assert.equal((await gantry.api('GET', '/groups/999999')).status, 404);
      assert.equal((await gantry.api('GET', '/groups/no-such-group')).status, 404);
      assert.equal((await gantry.api('GET', '/groups/bob')).status, 404, 'a user namespace is not a group');
      assert.equal((await gantry.api('GET', `/groups/${open.id}`, { token: 'wrong' })).status, 401);
    });

    it('shows a public group anonymously with the projects and shared projects the caller can read', async () => {
      const anonymous = await gantry.api('GET', `/groups/${open.id}`, { token: null });
      assert.equal(anonymous.status, 200);
      assert.deepEqual((anonymous.json.projects as Array<Record<string, unknown>>).map((project) => project.path), ['public-project']);
      assert.deepEqual((anonymous.json.shared_projects as Array<Record<string, unknown>>).map((project) => project.path), ['shared-project']);
      const owner = await gantry.api('GET', '/groups/open', { token: alice.token });
      assert.deepEqual((owner.json.projects as Array<Record<string, unknown>>).map((project) => project.path).sort(), ['private-project', 'public-project']);
    });

    it('lets members of a subgroup see the private parent', async () => {
      const top = await makeGroup(gantry, 'top-secret', { token: alice.token });
      const sub = await makeGroup(gantry, 'inner', { token: alice.token, parentId: top.id });
      const carol = await makeUser(gantry, 'carol');
      assert.equal((await gantry.api('GET', `/groups/${top.id}`, { token: carol.token })).status, 404);
      await addMember(gantry, { type: 'namespace', id: sub.id }, carol.id, 10);
      assert.equal((await gantry.api('GET', `/groups/${top.id}`, { token: carol.token })).status, 200);
    });
  });

  describe('PUT /groups/:id', () => {
    let group: { id: number };
    let child: { id: number };

    before(async () => {
      group = await makeGroup(gantry, 'editable', { token: alice.token, visibility: 'internal' });
      child = await makeGroup(gantry, 'kid', { token: alice.token, parentId: group.id, visibility: 'internal' });
      await makeGroup(gantry, 'grandkid', { token: alice.token, parentId: child.id });
      await addMember(gantry, { type: 'namespace', id: group.id }, bob.id, 40);
    });

    it('lets an owner change attributes and refreshes descendants on a rename', async () => {
      const updated = await gantry.api('PUT', `/groups/${group.id}`, {
        token: alice.token,
        form: { name: 'Edited', path: 'edited', description: 'changed', lfs_enabled: 'false', request_access_enabled: 'true' },
      });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.json.name, 'Edited');
      assert.equal(updated.json.path, 'edited');
      assert.equal(updated.json.full_path, 'edited');
      assert.equal(updated.json.web_url, 'http://gantry.test/groups/edited');
      assert.equal(updated.json.description, 'changed');
      assert.equal(updated.json.lfs_enabled, false);
      assert.equal(updated.json.request_access_enabled, true);
      assert.ok(Array.isArray(updated.json.projects), 'PUT returns group details');
      const grandkid = await gantry.api('GET', `/groups/${encodeURIComponent('edited/kid/grandkid')}`, { token: alice.token });
      assert.equal(grandkid.status, 200);
      assert.equal(grandkid.json.full_name, 'Edited / kid / grandkid');
      assert.equal((await gantry.api('GET', `/groups/${encodeURIComponent('editable/kid')}`, { token: alice.token })).status, 404);
    });

    it('is for owners and administrators only', async () => {
      const maintainer = await gantry.api('PUT', `/groups/${group.id}`, { token: bob.token, body: { description: 'x' } });
      assert.equal(maintainer.status, 403);
      const outsider = await makeUser(gantry, 'outsider');
      const secret = await makeGroup(gantry, 'secret-edit', { token: alice.token });
      assert.equal((await gantry.api('PUT', `/groups/${secret.id}`, { token: outsider.token, body: { description: 'x' } })).status, 404);
      assert.equal((await gantry.api('PUT', `/groups/${group.id}`, { token: null, body: { description: 'x' } })).status, 401);
      assert.equal((await gantry.api('PUT', '/groups/999999', { body: { description: 'x' } })).status, 404);
      const admin = await gantry.api('PUT', `/groups/${group.id}`, { body: { description: 'by admin' } });
      assert.equal(admin.status, 200);
      assert.equal(admin.json.description, 'by admin');
    });

    it('validates path, visibility and the hierarchy', async () => {
      const taken = await gantry.api('PUT', `/groups/${group.id}`, { token: alice.token, body: { path: 'alpha' } });
      assert.deepEqual(taken.body, { message: { path: ['has already been taken'] } });
      const invalid = await gantry.api('PUT', `/groups/${group.id}`, { token: alice.token, body: { visibility: 'everyone' } });
      assert.deepEqual(invalid.body, { error: 'visibility does not have a valid value' });
      const closing = await gantry.api('PUT', `/groups/${group.id}`, { token: alice.token, body: { visibility: 'private' } });
      assert.equal(closing.status, 400);
      assert.deepEqual(closing.body, { message: { visibility_level: ['private is not allowed since there are sub-groups with higher visibility.'] } });
      const opening = await gantry.api('PUT', `/groups/${child.id}`, { token: alice.token, body: { visibility: 'public' } });
      assert.deepEqual(opening.body, { message: { visibility_level: ['public is not allowed since the parent group has a internal visibility.'] } });
      const withProject = await makeGroup(gantry, 'with-project', { token: alice.token, visibility: 'public' });
      await makeProject(gantry, withProject.id, 'pub', { visibility: 'public' });
      const hiding = await gantry.api('PUT', `/groups/${withProject.id}`, { token: alice.token, body: { visibility: 'internal' } });
      assert.deepEqual(hiding.body, { message: { visibility_level: ['internal is not allowed since this group contains projects with higher visibility.'] } });
    });
  });

  describe('DELETE /groups/:id', () => {
    it('removes the group, its subgroups, their projects with their repositories, and memberships (202)', async () => {
      const { stores } = gantry.coordinator.context;
      const doomed = await makeGroup(gantry, 'doomed', { token: alice.token });
      const sub = await makeGroup(gantry, 'doomed-sub', { token: alice.token, parentId: doomed.id });
      const project = await makeProjectWithRepository(gantry, sub.id, 'doomed-project');
      await addMember(gantry, { type: 'project', id: project.id }, bob.id, 30);
      await addMember(gantry, { type: 'namespace', id: sub.id }, bob.id, 30);
      const { repositories } = gantry.coordinator.context;
      assert.equal(await repositories.exists(project.id), true);

      assert.equal((await gantry.api('DELETE', `/groups/${doomed.id}`, { token: bob.token })).status, 403, 'a subgroup developer is not an owner');
      const removed = await gantry.api('DELETE', `/groups/${doomed.id}`, { token: alice.token });
      assert.equal(removed.status, 202);
      assert.deepEqual(removed.body, { message: '202 Accepted' });

      assert.equal((await gantry.api('GET', `/groups/${doomed.id}`)).status, 404);
      assert.equal((await gantry.api('GET', `/groups/${sub.id}`)).status, 404);
      assert.equal(await stores.projects.findById(project.id), undefined);
      assert.deepEqual(await stores.members.listForUser(bob.id, 'project', [project.id]), []);
      assert.deepEqual(await stores.members.listForUser(bob.id, 'namespace', [sub.id]), []);
      // Each project goes as DELETE /projects/:id removes one: its repository too.
      assert.equal(await repositories.exists(project.id), false);
    });

    it('answers 401, 404 and 403 as the caller warrants', async () => {
      const kept = await makeGroup(gantry, 'kept', { token: alice.token });
      assert.equal((await gantry.api('DELETE', `/groups/${kept.id}`, { token: null })).status, 401);
      assert.equal((await gantry.api('DELETE', `/groups/${kept.id}`, { token: bob.token })).status, 404);
      assert.equal((await gantry.api('DELETE', '/groups/999999')).status, 404);
      await addMember(gantry, { type: 'namespace', id: kept.id }, bob.id, 40);
      assert.equal((await gantry.api('DELETE', `/groups/${kept.id}`, { token: bob.token })).status, 403);
      assert.equal((await gantry.api('DELETE', `/groups/${kept.id}`)).status, 202, 'administrators may remove any group');
    });
  });

  describe('POST /groups/:id/projects/:project_id', () => {
    it('moves a project into the group (administrators only) and narrows its visibility', async () => {
      const { stores } = gantry.coordinator.context;
      const target = await makeGroup(gantry, 'target', { token: alice.token, visibility: 'internal' });
      const source = await makeGroup(gantry, 'source', { visibility: 'public' });
      const project = await makeProject(gantry, source.id, 'movable', { visibility: 'public' });

      assert.equal((await gantry.api('POST', `/groups/${target.id}/projects/${project.id}`, { token: alice.token })).status, 403);
      assert.equal((await gantry.api('POST', `/groups/${target.id}/projects/${project.id}`, { token: null })).status, 401);

      const moved = await gantry.api('POST', `/groups/${target.id}/projects/${encodeURIComponent('source/movable')}`);
      assert.equal(moved.status, 201, moved.text);
      assert.equal(moved.json.id, target.id);
      assert.deepEqual((moved.json.projects as Array<Record<string, unknown>>).map((item) => item.id), [project.id]);
      const stored = await stores.projects.findById(project.id);
      assert.equal(stored?.namespace_id, target.id);
      assert.equal(stored?.visibility, 'internal');

      const again = await gantry.api('POST', `/groups/${target.id}/projects/${project.id}`);
      assert.equal(again.status, 400);
      assert.deepEqual(again.body, { message: { new_namespace: ['Project is already in this namespace.'] } });

      const clash = await makeProject(gantry, source.id, 'movable');
      const conflicting = await gantry.api('POST', `/groups/${target.id}/projects/${clash.id}`);
      assert.equal(conflicting.status, 400);
      assert.equal(await stores.projects.findById(clash.id).then((row) => row?.namespace_id), source.id);
    });

    it('answers 404 for unknown groups and projects', async () => {
      const target = await makeGroup(gantry, 'target-2');
      const missingGroup = await gantry.api('POST', '/groups/999999/projects/1');
      assert.deepEqual([missingGroup.status, missingGroup.body], [404, { message: '404 Group Not Found' }]);
      const missingProject = await gantry.api('POST', `/groups/${target.id}/projects/999999`);
      assert.deepEqual([missingProject.status, missingProject.body], [404, { message: '404 Project Not Found' }]);
    });
  });
});
