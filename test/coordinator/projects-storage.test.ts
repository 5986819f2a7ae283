import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup, makeProject, makeUser, type TestUser } from './groups-fixtures.ts';

describe('GET /projects/:id/storage', () => {
  let gantry: TestCoordinator;
  let alice: TestUser;

  before(async () => {
    gantry = await startTestCoordinator();
    alice = await makeUser(gantry, 'alice');
  });
  after(() => gantry.close());

  it('tells administrators where the repository is kept, by id or path', async () => {
    const group = await makeGroup(gantry, 'stored', { visibility: 'public' });
    const project = await makeProject(gantry, group.id, 'app', { visibility: 'public' });
    const expected = { project_id: project.id, disk_path: String(project.id), created_at: project.created_at, repository_storage: 'default' };
    const byId = await gantry.api('GET', `/projects/${project.id}/storage`);
    assert.equal(byId.status, 200, byId.text);
    assert.deepEqual(byId.json, expected);
    assert.deepEqual((await gantry.api('GET', '/projects/stored%2Fapp/storage')).json, expected);
  });

  it('refuses other users, anonymous callers and unknown projects', async () => {
    const group = await makeGroup(gantry, 'open', { visibility: 'public' });
    const project = await makeProject(gantry, group.id, 'app', { visibility: 'public' });
    assert.deepEqual((await gantry.api('GET', `/projects/${project.id}/storage`, { token: alice.token })).body, { message: '403 Forbidden' });
    assert.equal((await gantry.api('GET', `/projects/${project.id}/storage`, { token: null })).status, 401);
    assert.deepEqual((await gantry.api('GET', '/projects/999999/storage')).body, { message: '404 Project Not Found' });
    assert.equal((await gantry.api('GET', '/projects/no%2Fsuch/storage')).status, 404);
  });
});
