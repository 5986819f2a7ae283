import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

const refusal = (...reasons: string[]) => ({ message: { visibility_level: reasons } });

describe('visibility rules', () => {
  let gantry: TestCoordinator;
  let owner: TestUser;
  let reporter: TestUser;
  let stranger: TestUser;
  let secretGroup: number;
  let secretId: number;

  before(async () => {
    gantry = await startTestCoordinator();
    owner = await makeUser(gantry, 'owner');
    reporter = await makeUser(gantry, 'reporter');
    stranger = await makeUser(gantry, 'stranger');
    secretGroup = (await makeGroup(gantry, 'secret', { visibility: 'private', token: owner.token })).id;
    secretId = (await makeProjectWithRepository(gantry, secretGroup, 'code', { visibility: 'private', withReadme: true })).id;
    await addMember(gantry, { type: 'project', id: secretId }, reporter.id, 20);
  });
  after(() => gantry.close());

  const put = (path: string, body: Record<string, unknown>, token: string) => gantry.api('PUT', path, { token, body });

  it('keeps a reporter from publishing a private project through a fork', async () => {
    const fork = await gantry.api('POST', `/projects/${secretId}/fork`, { token: reporter.token, body: { visibility: 'public' } });
    assert.equal(fork.status, 201, fork.text);
    assert.equal(fork.json.visibility, 'private', 'a fork is never more open than its source, whatever was asked');
    const forkId = Number(fork.json.id);

    for (const level of ['public', 'internal']) {
      const opened = await put(`/projects/${forkId}`, { visibility: level }, reporter.token);
      assert.equal(opened.status, 400, opened.text);
      assert.deepEqual(opened.json, refusal(`${level} is not allowed since the fork source project has lower visibility.`));
    }
    const asAdmin = await put(`/projects/${forkId}`, { visibility: 'public' }, gantry.rootToken);
    assert.equal(asAdmin.status, 400, 'the rule is about the data, not the caller');

    assert.equal((await gantry.api('GET', `/projects/${forkId}`, { token: null })).status, 404);
    const raw = await gantry.api('GET', `/projects/${forkId}/repository/files/README.md/raw?ref=main`, { token: null });
    assert.equal(raw.status, 404, 'anonymous callers cannot read the source through the fork');
    const renamed = await put(`/projects/${forkId}`, { description: 'still private' }, reporter.token);
    assert.equal(renamed.status, 200, 'other changes to the fork are fine');
  });

  it('applies the group rule on update as on create', async () => {
    const created = await gantry.api('POST', '/projects', { token: owner.token, body: { name: 'inner', namespace_id: secretGroup, visibility: 'public' } });
    assert.deepEqual([created.status, created.json], [400, refusal('public is not allowed in a private group.')]);
    const updated = await put(`/projects/${secretId}`, { visibility: 'internal' }, owner.token);
    assert.deepEqual([updated.status, updated.json], [400, refusal('internal is not allowed in a private group.')]);
  });

  it('keeps groups within their parent and above their subgroups and projects', async () => {
    const parent = (await makeGroup(gantry, 'parent', { visibility: 'internal', token: owner.token })).id;
    const publicChild = await gantry.api('POST', '/groups', { token: owner.token, body: { name: 'kid', path: 'kid', parent_id: parent, visibility: 'public' } });
    assert.deepEqual([publicChild.status, publicChild.json], [400, refusal('public is not allowed since the parent group has a internal visibility.')]);
    const child = (await makeGroup(gantry, 'child', { visibility: 'internal', parentId: parent, token: owner.token })).id;
    const opened = await put(`/groups/${child}`, { visibility: 'public' }, owner.token);
    assert.deepEqual([opened.status, opened.json], [400, refusal('public is not allowed since the parent group has a internal visibility.')]);
    const closed = await put(`/groups/${parent}`, { visibility: 'private' }, owner.token);
    assert.deepEqual([closed.status, closed.json], [400, refusal('private is not allowed since there are sub-groups with higher visibility.')]);
    await makeProjectWithRepository(gantry, child, 'tool', { visibility: 'internal' });
    const childClosed = await put(`/groups/${child}`, { visibility: 'private' }, owner.token);
    assert.deepEqual(childClosed.json, refusal('private is not allowed since this group contains projects with higher visibility.'));
    const defaulted = await gantry.api('POST', '/groups', { token: owner.token, body: { name: 'quiet', path: 'quiet', parent_id: parent } });
    assert.equal(defaulted.json.visibility, 'private', 'the instance default (private) stays within the parent');
  });

  it('leaves forks as they are when the source becomes more private, and hides the source from who cannot see it', async () => {
    const created = await gantry.api('POST', '/projects', { token: owner.token, body: { name: 'open', visibility: 'public', initialize_with_readme: true } });
    assert.equal(created.status, 201, created.text);
    const sourceId = Number(created.json.id);
    const fork = await gantry.api('POST', `/projects/${sourceId}/fork`, { token: stranger.token });
    assert.equal(fork.json.visibility, 'public');
    const forkId = Number(fork.json.id);
    assert.equal(((await gantry.api('GET', `/projects/${forkId}`, { token: null })).json.forked_from_project as { id: number }).id, sourceId);

    assert.equal((await put(`/projects/${sourceId}`, { visibility: 'private' }, owner.token)).status, 200);
    const seenByAnonymous = await gantry.api('GET', `/projects/${forkId}`, { token: null });
    assert.equal(seenByAnonymous.json.visibility, 'public', 'the fork keeps its visibility');
    assert.equal('forked_from_project' in seenByAnonymous.json, false, 'the private source is not named to anonymous callers');
    const seenByForker = await gantry.api('GET', `/projects/${forkId}`, { token: stranger.token });
    assert.equal('forked_from_project' in seenByForker.json, false, 'nor to the fork owner, who cannot read it any more');
    const listed = await gantry.api('GET', `/users/${stranger.username}/projects`, { token: stranger.token });
    assert.equal(listed.list.some((project) => 'forked_from_project' in project), false, 'nor in listings');
    const seenByOwner = await gantry.api('GET', `/projects/${forkId}`, { token: owner.token });
    assert.equal((seenByOwner.json.forked_from_project as { id: number }).id, sourceId, 'the source owner still sees the link');

    const internal = await put(`/projects/${forkId}`, { visibility: 'internal' }, stranger.token);
    assert.deepEqual(internal.json, refusal('internal is not allowed since the fork source project has lower visibility.'));
    assert.equal((await put(`/projects/${forkId}`, { visibility: 'private' }, stranger.token)).status, 200, 'the fork can only close further');
  });

  it('lists in shared_with_groups only the groups the caller can see', async () => {
    const created = await gantry.api('POST', '/projects', { token: owner.token, body: { name: 'shared', visibility: 'public' } });
    const projectId = Number(created.json.id);
    const hidden = (await makeGroup(gantry, 'hidden-team', { visibility: 'private', token: owner.token })).id;
    const open = (await makeGroup(gantry, 'open-team', { visibility: 'public', token: owner.token })).id;
    for (const groupId of [hidden, open]) {
      assert.equal((await gantry.api('POST', `/projects/${projectId}/share`, { token: owner.token, body: { group_id: groupId, group_access: 30 } })).status, 201);
    }
    const names = async (token: string | null) =>
      ((await gantry.api('GET', `/projects/${projectId}`, { token })).json.shared_with_groups as Array<{ group_full_path: string }>).map((share) => share.group_full_path).sort();
    assert.deepEqual(await names(null), ['open-team']);
    assert.deepEqual(await names(stranger.token), ['open-team']);
    assert.deepEqual(await names(owner.token), ['hidden-team', 'open-team']);

    const home = (await makeGroup(gantry, 'home', { visibility: 'public', token: owner.token })).id;
    for (const groupId of [hidden, open]) {
      assert.equal((await gantry.api('POST', `/groups/${home}/share`, { token: owner.token, body: { group_id: groupId, group_access: 30 } })).status, 201);
    }
    const groupShares = async (token: string | null) =>
      ((await gantry.api('GET', `/groups/${home}`, { token })).json.shared_with_groups as Array<{ group_full_path: string }>).map((share) => share.group_full_path).sort();
    assert.deepEqual(await groupShares(null), ['open-team']);
    assert.deepEqual(await groupShares(owner.token), ['hidden-team', 'open-team']);
  });

  it('narrows a project moved into a more private group', async () => {
    const created = await gantry.api('POST', '/projects', { token: owner.token, body: { name: 'mover', visibility: 'public' } });
    const moved = await gantry.api('PUT', `/projects/${created.json.id}/transfer`, { token: owner.token, body: { namespace: secretGroup } });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.json.visibility, 'private');
  });
});
