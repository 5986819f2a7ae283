import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProject, makeUser, type TestUser } from './groups-fixtures.ts';

const MEMBER_FIELDS = ['access_level', 'avatar_url', 'expires_at', 'id', 'name', 'state', 'username', 'web_url'];
const nextYear = `${new Date().getUTCFullYear() + 1}-06-30`;

describe('project members', () => {
  let gantry: TestCoordinator;
  let owner: TestUser;
  let maintainer: TestUser;
  let carol: TestUser;
  let dave: TestUser;
  let outsider: TestUser;
  let base: string;
  let publicBase: string;

  before(async () => {
    gantry = await startTestCoordinator();
    owner = await makeUser(gantry, 'owner');
    maintainer = await makeUser(gantry, 'maintainer');
    carol = await makeUser(gantry, 'carol', { name: 'Carol Singer' });
    dave = await makeUser(gantry, 'dave', { name: 'Dave Drummer' });
    outsider = await makeUser(gantry, 'outsider');
    const group = await makeGroup(gantry, 'team', { token: owner.token });
    const project = await makeProject(gantry, group.id, 'app');
    await addMember(gantry, { type: 'project', id: project.id }, maintainer.id, 40);
    base = `/projects/${project.id}/members`;
    const open = await makeProject(gantry, group.id, 'open-app', { visibility: 'public' });
    publicBase = `/projects/${open.id}/members`;
  });
  after(() => gantry.close());

  it('adds a member (201) with the member fields', async () => {
    const added = await gantry.api('POST', base, { token: maintainer.token, body: { user_id: carol.id, access_level: 30, expires_at: nextYear } });
    assert.equal(added.status, 201, added.text);
    assert.deepEqual(Object.keys(added.json).sort(), MEMBER_FIELDS);
    assert.deepEqual(added.json, {
      id: carol.id, name: 'Carol Singer', username: 'carol', state: 'active', avatar_url: null,
      web_url: 'http://gantry.test/carol', access_level: 30, expires_at: nextYear,
    });
  });

  it('answers 409 when the member already exists', async () => {
    const again = await gantry.api('POST', base, { token: maintainer.token, form: { user_id: String(carol.id), access_level: '20' } });
    assert.equal(again.status, 409);
    assert.deepEqual(again.body, { message: 'Member already exists' });
  });

  it('answers 400 (never 422) for bad input and 404 for an unknown user', async () => {
    const cases: Array<[Record<string, unknown>, number, unknown]> = [
      [{ access_level: 30 }, 400, { error: 'user_id is missing' }],
      [{ user_id: dave.id }, 400, { error: 'access_level is missing' }],
      [{ user_id: 'dave', access_level: 30 }, 400, { error: 'user_id is invalid' }],
      [{ user_id: dave.id, access_level: 'high' }, 400, { error: 'access_level is invalid' }],
      [{ user_id: dave.id, access_level: 35 }, 400, { message: { access_level: ['is not included in the list'] } }],
      [{ user_id: dave.id, access_level: 50 }, 400, { message: { access_level: ['is not included in the list'] } }],
      [{ user_id: dave.id, access_level: 30, expires_at: 'next week' }, 400, { error: 'expires_at is invalid' }],
      [{ user_id: dave.id, access_level: 30, expires_at: '2001-01-01' }, 400, { message: { expires_at: ['cannot be a date in the past'] } }],
      [{ user_id: 999999, access_level: 30 }, 404, { message: '404 User Not Found' }],
    ];
    for (const [body, status, expected] of cases) {
      const response = await gantry.api('POST', base, { token: maintainer.token, body });
      assert.equal(response.status, status, JSON.stringify(body));
      assert.deepEqual(response.body, expected, JSON.stringify(body));
    }
    assert.equal((await gantry.api('GET', `${base}/${dave.id}`, { token: maintainer.token })).status, 404, 'nothing was added');
  });

  it('needs a token, maintainer access and a readable project', async () => {
    const body = { user_id: dave.id, access_level: 30 };
    assert.equal((await gantry.api('POST', base, { token: null, body })).status, 401);
    assert.equal((await gantry.api('POST', base, { token: 'bogus', body })).status, 401);
    const developer = await gantry.api('POST', base, { token: carol.token, body });
    assert.deepEqual([developer.status, developer.body], [403, { message: '403 Forbidden' }]);
    const hidden = await gantry.api('POST', base, { token: outsider.token, body });
    assert.deepEqual([hidden.status, hidden.body], [404, { message: '404 Project Not Found' }]);
    assert.equal((await gantry.api('POST', '/projects/999999/members', { body })).status, 404);
    const byGroupOwner = await gantry.api('POST', base, { token: owner.token, body });
    assert.equal(byGroupOwner.status, 201, 'owners of the project group manage its members');
  });

  it('lists members with filters and pagination; non-members of a private project get 404', async () => {
    const all = await gantry.api('GET', base, { token: carol.token });
    assert.equal(all.status, 200);
    assert.deepEqual(all.list.map((member) => member.username), ['maintainer', 'carol', 'dave']);
    assert.equal(all.headers['x-total'], '3');
    const searched = await gantry.api('GET', `${base}?query=DRUM`, { token: carol.token });
    assert.deepEqual(searched.list.map((member) => member.username), ['dave']);
    const byIds = await gantry.api('GET', `${base}?user_ids[]=${maintainer.id}&user_ids[]=${dave.id}`, { token: carol.token });
    assert.deepEqual(byIds.list.map((member) => member.username), ['maintainer', 'dave']);
    const paged = await gantry.api('GET', `${base}?per_page=2&page=2`, { token: carol.token });
    assert.deepEqual(paged.list.map((member) => member.username), ['dave']);
    assert.equal(paged.headers['x-total-pages'], '2');
    assert.equal(paged.headers['x-prev-page'], '1');
    assert.equal((await gantry.api('GET', `${base}?user_ids[]=x`, { token: carol.token })).status, 400);

    assert.equal((await gantry.api('GET', base, { token: outsider.token })).status, 404);
    assert.equal((await gantry.api('GET', base, { token: null })).status, 404);
    const anonymous = await gantry.api('GET', publicBase, { token: null });
    assert.deepEqual([anonymous.status, anonymous.body], [200, []]);
  });

  it('shows one member; 404 Member Not Found for non-members', async () => {
    const one = await gantry.api('GET', `${base}/${carol.id}`, { token: dave.token });
    assert.equal(one.status, 200);
    assert.equal(one.json.access_level, 30);
    const missing = await gantry.api('GET', `${base}/${outsider.id}`, { token: dave.token });
    assert.deepEqual([missing.status, missing.body], [404, { message: '404 Member Not Found' }]);
    assert.equal((await gantry.api('GET', `${base}/abc`, { token: dave.token })).status, 400);
  });

  it('updates a member', async () => {
    const updated = await gantry.api('PUT', `${base}/${carol.id}`, { token: maintainer.token, form: { access_level: '40', expires_at: '' } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.json.access_level, 40);
    assert.equal(updated.json.expires_at, null);
    const kept = await gantry.api('PUT', `${base}/${carol.id}`, { token: maintainer.token, body: { access_level: 30 } });
    assert.equal(kept.json.access_level, 30);

    assert.deepEqual((await gantry.api('PUT', `${base}/${outsider.id}`, { token: maintainer.token, body: { access_level: 30 } })).body, { message: '404 Member Not Found' });
    assert.deepEqual((await gantry.api('PUT', `${base}/${carol.id}`, { token: maintainer.token, body: {} })).body, { error: 'access_level is missing' });
    const invalid = await gantry.api('PUT', `${base}/${carol.id}`, { token: maintainer.token, body: { access_level: 60 } });
    assert.deepEqual([invalid.status, invalid.body], [400, { message: { access_level: ['is not included in the list'] } }]);
    assert.equal((await gantry.api('PUT', `${base}/${dave.id}`, { token: carol.token, body: { access_level: 10 } })).status, 403);
    assert.equal((await gantry.api('PUT', `${base}/${dave.id}`, { token: null, body: { access_level: 10 } })).status, 401);
  });

  it('removes members (204); members may leave; others need maintainer access', async () => {
    assert.equal((await gantry.api('DELETE', `${base}/${dave.id}`, { token: carol.token })).status, 403);
    assert.equal((await gantry.api('DELETE', `${base}/${outsider.id}`, { token: maintainer.token })).status, 404);
    const left = await gantry.api('DELETE', `${base}/${carol.id}`, { token: carol.token });
    assert.equal(left.status, 204);
    assert.equal(left.text, '');
    assert.equal((await gantry.api('DELETE', `${base}/${dave.id}`, { token: maintainer.token })).status, 204);
    assert.deepEqual((await gantry.api('GET', base, { token: maintainer.token })).list.map((member) => member.username), ['maintainer']);
    assert.equal((await gantry.api('DELETE', `${base}/${dave.id}`, { token: null })).status, 401);
  });
});

describe('group members', () => {
  let gantry: TestCoordinator;
  let owner: TestUser;
  let maintainer: TestUser;
  let dev: TestUser;
  let outsider: TestUser;
  let groupId: number;
  let base: string;

  before(async () => {
    gantry = await startTestCoordinator();
    owner = await makeUser(gantry, 'owner');
    maintainer = await makeUser(gantry, 'maintainer');
    dev = await makeUser(gantry, 'dev');
    outsider = await makeUser(gantry, 'outsider');
    groupId = (await makeGroup(gantry, 'crew', { token: owner.token })).id;
    base = `/groups/${groupId}/members`;
  });
  after(() => gantry.close());

  it('lets the owner add owners and maintainers; the group path works too', async () => {
    const added = await gantry.api('POST', base, { token: owner.token, body: { user_id: maintainer.id, access_level: 40 } });
    assert.equal(added.status, 201, added.text);
    assert.equal(added.json.access_level, 40);
    const list = await gantry.api('GET', '/groups/crew/members', { token: maintainer.token });
    assert.deepEqual(list.list.map((member) => [member.username, member.access_level]), [['owner', 50], ['maintainer', 40]]);
    assert.equal(list.headers['x-total'], '2');
  });

  it('lets maintainers manage members below owner only', async () => {
    const added = await gantry.api('POST', base, { token: maintainer.token, body: { user_id: dev.id, access_level: 30 } });
    assert.equal(added.status, 201, added.text);
    assert.equal((await gantry.api('PUT', `${base}/${dev.id}`, { token: maintainer.token, body: { access_level: 20 } })).status, 200);
    assert.equal((await gantry.api('PUT', `${base}/${dev.id}`, { token: maintainer.token, body: { access_level: 50 } })).status, 403);
    assert.equal((await gantry.api('PUT', `${base}/${owner.id}`, { token: maintainer.token, body: { access_level: 30 } })).status, 403);
    assert.equal((await gantry.api('DELETE', `${base}/${owner.id}`, { token: maintainer.token })).status, 403);
    assert.equal((await gantry.api('POST', base, { token: dev.token, body: { user_id: outsider.id, access_level: 10 } })).status, 403);
  });

  it('accepts owner level in groups and rejects levels outside the list', async () => {
    const invalid = await gantry.api('POST', base, { token: owner.token, body: { user_id: outsider.id, access_level: 60 } });
    assert.deepEqual([invalid.status, invalid.body], [400, { message: { access_level: ['is not included in the list'] } }]);
    assert.equal((await gantry.api('POST', base, { token: owner.token, body: { user_id: outsider.id, access_level: 'x' } })).status, 400);
  });

  it('keeps the last owner: no demotion, no removal, until another owner exists', async () => {
    const demote = await gantry.api('PUT', `${base}/${owner.id}`, { token: owner.token, body: { access_level: 40 } });
    assert.equal(demote.status, 403);
    assert.deepEqual(demote.body, { message: '403 Forbidden - A group must have at least one owner' });
    assert.equal((await gantry.api('DELETE', `${base}/${owner.id}`, { token: owner.token })).status, 403);
    assert.equal((await gantry.api('DELETE', `${base}/${owner.id}`)).status, 403, 'not even administrators');

    assert.equal((await gantry.api('PUT', `${base}/${maintainer.id}`, { token: owner.token, body: { access_level: 50 } })).status, 200);
    assert.equal((await gantry.api('DELETE', `${base}/${owner.id}`, { token: owner.token })).status, 204);
    assert.equal((await gantry.api('GET', `${base}/${owner.id}`, { token: maintainer.token })).status, 404);
  });

  it('counts owners of parent groups for a subgroup', async () => {
    const sub = await makeGroup(gantry, 'sub-crew', { token: maintainer.token, parentId: groupId });
    const subBase = `/groups/${sub.id}/members`;
    // maintainer owns both the parent and the subgroup: leaving the subgroup keeps the parent's owner.
    assert.equal((await gantry.api('DELETE', `${subBase}/${maintainer.id}`, { token: maintainer.token })).status, 204);
  });

  it('hides private groups from non-members (404) and needs a token to change', async () => {
    const hidden = await gantry.api('GET', base, { token: outsider.token });
    assert.deepEqual([hidden.status, hidden.body], [404, { message: '404 Group Not Found' }]);
    assert.equal((await gantry.api('GET', `${base}/${maintainer.id}`, { token: null })).status, 404);
    assert.equal((await gantry.api('GET', '/groups/999999/members')).status, 404);
    assert.equal((await gantry.api('POST', base, { token: null, body: { user_id: outsider.id, access_level: 10 } })).status, 401);
    assert.equal((await gantry.api('PUT', `${base}/${dev.id}`, { token: 'wrong', body: { access_level: 10 } })).status, 401);
    assert.equal((await gantry.api('DELETE', `${base}/${dev.id}`, { token: outsider.token })).status, 404);
  });

  it('lets administrators manage any group', async () => {
    const added = await gantry.api('POST', base, { body: { user_id: outsider.id, access_level: 50 } });
    assert.equal(added.status, 201);
    assert.equal((await gantry.api('DELETE', `${base}/${dev.id}`)).status, 204);
  });
});

describe('memberships below an inherited one', () => {
  let gantry: TestCoordinator;
  let erin: TestUser;
  let projectBase: string;
  let subgroupBase: string;

  before(async () => {
    gantry = await startTestCoordinator();
    erin = await makeUser(gantry, 'erin');
    const corp = await makeGroup(gantry, 'corp', { name: 'Corp Group' });
    const team = await makeGroup(gantry, 'team', { parentId: corp.id });
    await addMember(gantry, { type: 'namespace', id: corp.id }, erin.id, 30);
    const project = await makeProject(gantry, team.id, 'app');
    projectBase = `/projects/${project.id}/members`;
    subgroupBase = `/groups/${team.id}/members`;
  });
  after(() => gantry.close());

  const refusal = { message: { access_level: ['should be greater than or equal to Developer inherited membership from group Corp Group'] } };

  it('refuses a project or subgroup membership lower than the user\'s group membership above', async () => {
    const project = await gantry.api('POST', projectBase, { body: { user_id: erin.id, access_level: 20 } });
    assert.deepEqual([project.status, project.body], [400, refusal]);
    const subgroup = await gantry.api('POST', subgroupBase, { body: { user_id: erin.id, access_level: 10 } });
    assert.deepEqual([subgroup.status, subgroup.body], [400, refusal]);
    assert.equal((await gantry.api('GET', `${projectBase}/${erin.id}`)).status, 404, 'nothing was added');
  });

  it('accepts an equal or higher level, and refuses lowering it below the inherited one', async () => {
    assert.equal((await gantry.api('POST', projectBase, { body: { user_id: erin.id, access_level: 30 } })).status, 201);
    assert.equal((await gantry.api('POST', subgroupBase, { body: { user_id: erin.id, access_level: 40 } })).status, 201);
    const lowered = await gantry.api('PUT', `${projectBase}/${erin.id}`, { body: { access_level: 30 } });
    const highest = { message: { access_level: ['should be greater than or equal to Maintainer inherited membership from group team'] } };
    assert.deepEqual([lowered.status, lowered.body], [400, highest], 'the highest membership above counts');
    const raised = await gantry.api('PUT', `${projectBase}/${erin.id}`, { body: { access_level: 40 } });
    assert.equal(raised.status, 200, raised.text);
  });
});
