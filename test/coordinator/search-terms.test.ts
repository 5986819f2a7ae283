import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProjectWithRepository, makeUser } from './groups-fixtures.ts';

/** `search` terms of any length and content are substrings to find, never patterns (SQLite refused LIKE patterns over 50,000 bytes: 500). */
describe('search terms', () => {
  let gantry: TestCoordinator;
  let lists: string[];

  before(async () => {
    gantry = await startTestCoordinator();
    const group = await makeGroup(gantry, 'find_me', { visibility: 'public' });
    const project = await makeProjectWithRepository(gantry, group.id, 'found', { visibility: 'public' });
    const user = await makeUser(gantry, 'seeker');
    await addMember(gantry, { type: 'project', id: project.id }, user.id, 30);
    lists = ['/users?search=', '/groups?search=', '/namespaces?search=', '/projects?search=', `/projects/${project.id}/members?query=`, `/groups/${group.id}/projects?search=`, `/projects/${project.id}/users?search=`];
  });
  after(() => gantry.close());

  it('answers an empty list for terms longer than any name, up to the body limit', async () => {
    for (const length of [50_001, 1_000_000]) {
      for (const list of lists) {
        const response = await gantry.api('GET', `${list}${'x'.repeat(length)}`);
        assert.deepEqual([response.status, response.text], [200, '[]'], `${list} with ${length} characters`);
      }
    }
  });

  it('finds names by substring, with % and _ taken literally', async () => {
    assert.deepEqual((await gantry.api('GET', '/groups?search=D_M')).list.map((group) => group.path), ['find_me']);
    assert.deepEqual((await gantry.api('GET', '/groups?search=d%25m')).text, '[]');
    assert.deepEqual((await gantry.api('GET', '/users?search=EEK')).list.map((user) => user.username), ['seeker']);
    assert.deepEqual((await gantry.api('GET', '/namespaces?search=find_')).list.map((namespace) => namespace.path), ['find_me']);
    assert.deepEqual((await gantry.api('GET', '/projects?search=OUN')).list.map((project) => project.path), ['found']);
  });
});
