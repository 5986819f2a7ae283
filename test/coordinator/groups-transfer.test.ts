import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

describe('POST /groups/:id/transfer and GET /groups/:id/descendant_groups', () => {
  let gantry: TestCoordinator;
  let alice: TestUser;
  let bob: TestUser;

  before(async () => {
    gantry = await startTestCoordinator();
    alice = await makeUser(gantry, 'alice');
    bob = await makeUser(gantry, 'bob');
  });
  after(() => gantry.close());

  const gitRefs = (path: string, user: TestUser) => {
    const authorization = `Basic ${Buffer.from(`${user.username}:${user.token}`).toString('base64')}`;
    return gantry.coordinator.app.inject({ method: 'GET', url: `/${path}.git/info/refs?service=git-upload-pack`, headers: { authorization } });
  };
  const transfer = (id: number, body: Record<string, unknown>, token = alice.token) => gantry.api('POST', `/groups/${id}/transfer`, { token, body });

  it('lists every group below a group with the subgroups filters, and only those the caller can see', async () => {
    const top = await makeGroup(gantry, 'tree', { token: alice.token, visibility: 'public' });
    const left = await makeGroup(gantry, 'left', { token: alice.token, parentId: top.id, visibility: 'public' });
    await makeGroup(gantry, 'right', { token: alice.token, parentId: top.id, visibility: 'private' });
    await makeGroup(gantry, 'leaf', { token: alice.token, parentId: left.id, visibility: 'public' });

    const all = await gantry.api('GET', `/groups/${top.id}/descendant_groups`, { token: alice.token });
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(all.list.map((group) => group.full_path), ['tree/left/leaf', 'tree/left', 'tree/right']);
    assert.equal(all.headers['x-total'], '3');

    const asBob = await gantry.api('GET', `/groups/${top.id}/descendant_groups?all_available=true`, { token: bob.token });
    assert.deepEqual(asBob.list.map((group) => group.full_path), ['tree/left/leaf', 'tree/left'], 'a private subgroup is hidden from a non-member');
    const bobsOwn = await gantry.api('GET', `/groups/${top.id}/descendant_groups`, { token: bob.token });
    assert.deepEqual(bobsOwn.list, [], 'without all_available a non-member lists only groups reached through membership, as GitLab');

    const searched = await gantry.api('GET', `/groups/${top.id}/descendant_groups?search=lea&order_by=path&sort=desc`, { token: alice.token });
    assert.deepEqual(searched.list.map((group) => group.path), ['leaf']);
    const skipped = await gantry.api('GET', `/groups/${top.id}/descendant_groups?skip_groups[]=${left.id}&order_by=path`, { token: alice.token });
    assert.deepEqual(skipped.list.map((group) => group.path), ['leaf', 'right']);
    const owned = await gantry.api('GET', `/groups/${top.id}/descendant_groups?owned=true`, { token: bob.token });
    assert.deepEqual(owned.list, []);
    const paged = await gantry.api('GET', `/groups/${top.id}/descendant_groups?per_page=1&page=2`, { token: alice.token });
    assert.deepEqual(paged.list.map((group) => group.path), ['left']);

    assert.deepEqual((await gantry.api('GET', '/groups/9999/descendant_groups', { token: alice.token })).body, { message: '404 Group Not Found' });
    assert.equal((await gantry.api('GET', `/groups/${top.id}/descendant_groups?order_by=size`, { token: alice.token })).status, 400);
  });

  it('moves a group with its subgroups and projects under another group; git follows the new paths', async () => {
    const source = await makeGroup(gantry, 'src', { token: alice.token, visibility: 'public' });
    const child = await makeGroup(gantry, 'child', { token: alice.token, parentId: source.id, visibility: 'public' });
    const project = await makeProjectWithRepository(gantry, child.id, 'app', { visibility: 'public', withReadme: true });
    await addMember(gantry, { type: 'project', id: project.id }, alice.id, 40);
    const target = await makeGroup(gantry, 'target', { token: alice.token, visibility: 'internal' });

    const moved = await transfer(source.id, { group_id: target.id });
    assert.equal(moved.status, 201, moved.text);
    assert.equal(moved.json.full_path, 'target/src');
    assert.equal(moved.json.parent_id, target.id);
    assert.equal(moved.json.visibility, 'internal', 'narrowed to the new parent');
    assert.ok(Array.isArray(moved.json.projects), 'answers the group details');

    const movedChild = await gantry.api('GET', `/groups/${child.id}`, { token: alice.token });
    assert.equal(movedChild.json.full_path, 'target/src/child');
    assert.equal(movedChild.json.visibility, 'internal');
    const movedProject = await gantry.api('GET', `/projects/${project.id}`, { token: alice.token });
    assert.equal(movedProject.json.path_with_namespace, 'target/src/child/app');
    assert.equal(movedProject.json.visibility, 'internal');

    assert.equal((await gitRefs('target/src/child/app', alice)).statusCode, 200);
    assert.equal((await gitRefs('src/child/app', alice)).statusCode, 404, 'the old path is gone');

    const back = await transfer(source.id, {});
    assert.equal(back.status, 201, back.text);
    assert.equal(back.json.full_path, 'src');
    assert.equal(back.json.parent_id, null);
    assert.equal((await gitRefs('src/child/app', alice)).statusCode, 200);
  });

  it('refuses moves into itself, a descendant, the same parent, a clash of paths, and without ownership', async () => {
    const group = await makeGroup(gantry, 'mover', { token: alice.token });
    const inner = await makeGroup(gantry, 'inner', { token: alice.token, parentId: group.id });
    const other = await makeGroup(gantry, 'other', { token: alice.token });
    await makeGroup(gantry, 'mover', { token: alice.token, parentId: other.id });
    const bobs = await makeGroup(gantry, 'bobs', { token: bob.token, visibility: 'public' });
    const failed = (reason: string) => ({ message: `Transfer failed: ${reason}` });

    assert.deepEqual((await transfer(group.id, { group_id: group.id })).body, failed('Cannot transfer group to one of its subgroup.'));
    assert.deepEqual((await transfer(group.id, { group_id: inner.id })).body, failed('Cannot transfer group to one of its subgroup.'));
    assert.deepEqual((await transfer(inner.id, { group_id: group.id })).body, failed('Group is already associated to the parent group.'));
    assert.deepEqual((await transfer(group.id, {})).body, failed('Group is already a root group.'));
    const clash = await transfer(group.id, { group_id: other.id });
    assert.equal(clash.status, 400);
    assert.deepEqual(clash.body, failed('The parent group already has a subgroup or a project with the same path.'));
    assert.deepEqual((await transfer(group.id, { group_id: bobs.id })).body, failed("You don't have enough permissions."));
    assert.equal((await transfer(group.id, { group_id: other.id }, bob.token)).status, 404, 'bob cannot see the private group');
    await addMember(gantry, { type: 'namespace', id: group.id }, bob.id, 40);
    assert.equal((await transfer(group.id, { group_id: bobs.id }, bob.token)).status, 403, 'a maintainer is not an owner');
    assert.deepEqual((await transfer(group.id, { group_id: 9999 })).body, { message: '404 Group Not Found' });
    assert.equal((await transfer(group.id, { group_id: 'x' })).status, 400);
    assert.equal((await transfer(group.id, { group_id: 0 })).status, 400);
    assert.equal((await gantry.api('POST', `/groups/${group.id}/transfer`, { token: null, body: {} })).status, 401);

    const unchanged = await gantry.api('GET', `/groups/${inner.id}`, { token: alice.token });
    assert.equal(unchanged.json.full_path, 'mover/inner');
  });
});
