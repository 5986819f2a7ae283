import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

/**
 * The same write sent six times at once: one wins, the others get the answer a sequential
 * duplicate gets, never a 500. On PostgreSQL these requests really interleave between the
 * duplicate check and the insert, so the unique indexes decide.
 */
describe('concurrent duplicate writes', () => {
  let gantry: TestCoordinator;
  let projectId: number;
  let userId: number;

  before(async () => {
    gantry = await startTestCoordinator();
    projectId = Number((await gantry.api('POST', '/projects', { body: { name: 'base', initialize_with_readme: true } })).json.id);
    userId = (await gantry.createUser('member')).id;
  });
  after(() => gantry.close());

  const sixTimes = async (method: 'POST' | 'PUT', path: string, body: Record<string, unknown>) => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => gantry.api(method, path, { body })));
    return answers.map((answer) => answer.status).sort();
  };

  it('creates one project, group, member, protected branch and fork', async () => {
    assert.deepEqual(await sixTimes('POST', '/projects', { name: 'same' }), [201, 400, 400, 400, 400, 400]);
    assert.deepEqual(await sixTimes('POST', '/groups', { name: 'g', path: 'g' }), [201, 400, 400, 400, 400, 400]);
    assert.deepEqual(await sixTimes('POST', `/projects/${projectId}/members`, { user_id: userId, access_level: 30 }), [201, 409, 409, 409, 409, 409]);
    assert.deepEqual(await sixTimes('POST', `/projects/${projectId}/protected_branches`, { name: 'stable' }), [201, 409, 409, 409, 409, 409]);
    assert.deepEqual(await sixTimes('POST', `/projects/${projectId}/fork`, { namespace: 'member' }), [201, 409, 409, 409, 409, 409]);
  });

  it('releases a tag once and deletes a user once, with a single ghost user', async () => {
    assert.equal((await gantry.api('POST', `/projects/${projectId}/repository/tags`, { body: { tag_name: 'v1', ref: 'main' } })).status, 201);
    assert.deepEqual(await sixTimes('POST', `/projects/${projectId}/releases`, { tag_name: 'v1' }), [201, 409, 409, 409, 409, 409]);
    const leaving = [(await gantry.createUser('leaver-a')).id, (await gantry.createUser('leaver-b')).id];
    const deletions = await Promise.all([...leaving, leaving[0]!].map((id) => gantry.api('DELETE', `/users/${id}`)));
    assert.deepEqual(deletions.map((answer) => answer.status).sort(), [204, 204, 404]);
    const { users } = gantry.coordinator.context.stores;
    assert.equal((await users.findByUsername('ghost'))?.is_ghost, true);
    assert.equal(await users.findByUsername('ghost1'), undefined, 'one ghost user, not one per deletion');
  });

  it('adds one deploy key however many requests bring it', async () => {
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHm7WFs8ehWLKqSOZUS3qBN7RSSljWzPF2xhRUIE44rN deploy';
    assert.deepEqual(await sixTimes('POST', `/projects/${projectId}/deploy_keys`, { title: 'k', key }), [201, 201, 201, 201, 201, 201]);
    assert.equal((await gantry.api('GET', `/projects/${projectId}/deploy_keys`)).list.length, 1);
  });

  it('lets one of several renames to the same path win', async () => {
    const ids: number[] = [];
    for (const name of ['r1', 'r2', 'r3']) ids.push(Number((await gantry.api('POST', '/projects', { body: { name } })).json.id));
    const renames = await Promise.all(ids.map((id) => gantry.api('PUT', `/projects/${id}`, { body: { name: 'renamed', path: 'renamed' } })));
    assert.deepEqual(renames.map((answer) => answer.status).sort(), [200, 400, 400]);
    const groups: number[] = [];
    for (const path of ['h1', 'h2', 'h3']) groups.push(Number((await gantry.api('POST', '/groups', { body: { name: path, path } })).json.id));
    const moves = await Promise.all(groups.map((id) => gantry.api('PUT', `/groups/${id}`, { body: { path: 'moved' } })));
    assert.deepEqual(moves.map((answer) => answer.status).sort(), [200, 400, 400]);
    const paths = await Promise.all(groups.map(async (id) => (await gantry.api('GET', `/groups/${id}`)).json.full_path));
    assert.deepEqual(paths.filter((path) => path === 'moved').length, 1, 'the losers kept their full paths');
  });
});
