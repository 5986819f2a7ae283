import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeUser, type TestUser } from './groups-fixtures.ts';

const paths = (rows: Array<Record<string, unknown>>) => rows.map((row) => row.full_path);

describe('namespaces', () => {
  let gantry: TestCoordinator;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let alpha: number;
  let inner: number;

  before(async () => {
    gantry = await startTestCoordinator({ externalUrl: 'http://gantry.test' });
    alice = await makeUser(gantry, 'alice', { canCreateGroup: true });
    bob = await makeUser(gantry, 'bob');
    carol = await makeUser(gantry, 'carol');
    alpha = (await makeGroup(gantry, 'alpha', { name: 'Alpha', visibility: 'public', token: alice.token })).id;
    inner = (await makeGroup(gantry, 'inner', { visibility: 'private', parentId: alpha, token: alice.token })).id;
    await addMember(gantry, { type: 'namespace', id: alpha }, bob.id, 30);
  });
  after(() => gantry.close());

  it('lists the personal namespace and direct group memberships of a user', async () => {
    const bobs = await gantry.api('GET', '/namespaces', { token: bob.token });
    assert.equal(bobs.status, 200);
    assert.deepEqual(paths(bobs.list), ['bob', 'alpha']);
    assert.equal(bobs.headers['x-total'], '2');
    const [personal, group] = bobs.list;
    assert.equal(personal.kind, 'user');
    assert.equal(personal.web_url, 'http://gantry.test/bob');
    assert.equal(group.kind, 'group');
    assert.equal(group.web_url, 'http://gantry.test/groups/alpha');
    assert.equal(group.parent_id, null);
    assert.equal('members_count_with_descendants' in group, false, 'only those who administer the group see the count');
    assert.deepEqual(paths((await gantry.api('GET', '/namespaces?owned_only=true', { token: bob.token })).list), ['bob']);
    assert.deepEqual(paths((await gantry.api('GET', '/namespaces', { token: carol.token })).list), ['carol']);
  });

  it('shows group owners the member count of the group and its subgroups', async () => {
    const alices = await gantry.api('GET', '/namespaces?search=alp', { token: alice.token });
    assert.deepEqual(paths(alices.list), ['alpha']);
    assert.equal(alices.list[0].members_count_with_descendants, 2);
  });

  it('lists every namespace to administrators and filters by search', async () => {
    const all = paths((await gantry.api('GET', '/namespaces?per_page=100')).list);
    for (const expected of ['root', 'alice', 'bob', 'carol', 'alpha', 'alpha/inner']) assert.ok(all.includes(expected), expected);
    assert.deepEqual(paths((await gantry.api('GET', '/namespaces?search=INN')).list), ['alpha/inner']);
    assert.equal((await gantry.api('GET', '/namespaces', { token: null })).status, 401);
    assert.equal((await gantry.api('GET', '/namespaces?per_page=abc')).status, 400);
  });

  it('gets a namespace by id or URL-encoded full path, hiding what the caller cannot read', async () => {
    const byPath = await gantry.api('GET', '/namespaces/alpha%2Finner', { token: alice.token });
    assert.equal(byPath.status, 200);
    assert.equal(byPath.json.id, inner);
    assert.equal(byPath.json.parent_id, alpha);
    assert.equal((await gantry.api('GET', `/namespaces/${alpha}`, { token: carol.token })).status, 200, 'public group');
    const hidden = await gantry.api('GET', `/namespaces/${inner}`, { token: carol.token });
    assert.equal(hidden.status, 404);
    assert.deepEqual(hidden.body, { message: '404 Namespace Not Found' });
    assert.equal((await gantry.api('GET', '/namespaces/carol', { token: bob.token })).status, 404, "another user's namespace");
    assert.equal((await gantry.api('GET', '/namespaces/carol', { token: carol.token })).json.kind, 'user');
    assert.equal((await gantry.api('GET', '/namespaces/carol')).status, 200, 'administrators read any namespace');
    assert.equal((await gantry.api('GET', '/namespaces/999999')).status, 404);
  });

  it('says whether a path is taken and suggests a free one', async () => {
    assert.deepEqual((await gantry.api('GET', '/namespaces/alpha/exists', { token: carol.token })).body, { exists: true, suggests: ['alpha1'] });
    assert.deepEqual((await gantry.api('GET', '/namespaces/bob/exists', { token: carol.token })).body, { exists: true, suggests: ['bob1'] });
    assert.deepEqual((await gantry.api('GET', `/namespaces/inner/exists?parent_id=${alpha}`)).body, { exists: true, suggests: ['inner1'] });
    assert.deepEqual((await gantry.api('GET', '/namespaces/inner/exists')).body, { exists: false, suggests: [] });
    assert.equal((await gantry.api('GET', '/namespaces/inner/exists?parent_id=x')).status, 400);
    assert.equal((await gantry.api('GET', '/namespaces/inner/exists', { token: null })).status, 401);
  });
});
