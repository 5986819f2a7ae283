import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProject, makeUser, type TestUser } from './groups-fixtures.ts';

describe('GET /projects/:id/groups', () => {
  let gantry: TestCoordinator;
  let alice: TestUser;
  let bob: TestUser;
  let projectId: number;
  const ids: Record<string, number> = {};

  before(async () => {
    gantry = await startTestCoordinator();
    alice = await makeUser(gantry, 'alice');
    bob = await makeUser(gantry, 'bob');
    ids.top = (await makeGroup(gantry, 'top', { token: alice.token, visibility: 'public' })).id;
    ids.mid = (await makeGroup(gantry, 'mid', { token: alice.token, parentId: ids.top, visibility: 'public' })).id;
    ids.guests = (await makeGroup(gantry, 'guests', { token: alice.token, visibility: 'public' })).id;
    ids.secret = (await makeGroup(gantry, 'secret', { visibility: 'private' })).id;
    projectId = (await makeProject(gantry, ids.mid, 'app', { visibility: 'public' })).id;
    await addMember(gantry, { type: 'project', id: projectId }, alice.id, 40);
    const share = (groupId: number, level: number) => gantry.api('POST', `/projects/${projectId}/share`, { body: { group_id: groupId, group_access: level } });
    assert.equal((await share(ids.guests, 10)).status, 201);
    assert.equal((await share(ids.secret, 30)).status, 201);
  });
  after(() => gantry.close());

  const list = async (query: string, token: string | null = alice.token) => {
    const answer = await gantry.api('GET', `/projects/${projectId}/groups${query}`, { token });
    assert.equal(answer.status, 200, answer.text);
    return answer.list.map((group) => group.full_path);
  };

  it('answers the ancestor groups, newest first, in GitLab\'s public group shape', async () => {
    const answer = await gantry.api('GET', `/projects/${projectId}/groups`, { token: alice.token });
    assert.deepEqual(answer.list.map((group) => group.full_path), ['top/mid', 'top']);
    assert.deepEqual(Object.keys(answer.list[0] ?? {}).sort(), ['avatar_url', 'full_name', 'full_path', 'id', 'name', 'web_url']);
    assert.equal(answer.list[0]?.web_url, 'http://gantry.test/groups/top/mid');
    assert.equal(answer.headers['x-total'], '2');
    assert.deepEqual(await list('', null), ['top/mid', 'top'], 'anonymous readers of a public project see them too');
  });

  it('adds shared groups with with_shared, filtered by level and visibility, search and skip_groups', async () => {
    assert.deepEqual(await list('?with_shared=true'), ['secret', 'guests', 'top/mid', 'top']);
    assert.deepEqual(await list('?with_shared=true&shared_min_access_level=30'), ['secret', 'top/mid', 'top']);
    assert.deepEqual(await list('?with_shared=true&shared_visible_only=true', bob.token), ['guests', 'top/mid', 'top']);
    assert.deepEqual(await list(`?with_shared=true&skip_groups[]=${ids.top}&skip_groups[]=${ids.secret}`), ['guests', 'top/mid']);
    assert.deepEqual(await list('?with_shared=true&search=GUE'), ['guests']);
    assert.deepEqual(await list('?per_page=1&page=2'), ['top']);
  });

  it('refuses bad input and unreadable projects', async () => {
    const bad = await gantry.api('GET', `/projects/${projectId}/groups?shared_min_access_level=35`, { token: alice.token });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { error: 'shared_min_access_level does not have a valid value' });
    assert.equal((await gantry.api('GET', `/projects/${projectId}/groups?with_shared=maybe`, { token: alice.token })).status, 400);
    assert.deepEqual((await gantry.api('GET', '/projects/999999/groups', { token: alice.token })).body, { message: '404 Project Not Found' });
    const hidden = await makeProject(gantry, ids.secret, 'hidden');
    assert.equal((await gantry.api('GET', `/projects/${hidden.id}/groups`, { token: bob.token })).status, 404);
  });
});
