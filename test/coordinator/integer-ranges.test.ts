import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup, makeProjectWithRepository, makeUser } from './groups-fixtures.ts';

/** 2^31, the first integer past PostgreSQL's 32-bit `serial` and `integer` columns, and larger ones. */
const PAST_32_BITS = ['2147483648', '4294967296', '9007199254740993', '9223372036854775808'];

/** Integers past the 32-bit columns never reach SQL (PostgreSQL refused them and the API answered 500). */
describe('integers past 32 bits', () => {
  let gantry: TestCoordinator;
  let projectId: number;
  let userId: number;

  before(async () => {
    gantry = await startTestCoordinator();
    const group = await makeGroup(gantry, 'ints', { visibility: 'public' });
    projectId = (await makeProjectWithRepository(gantry, group.id, 'app', { visibility: 'public', withReadme: true })).id;
    userId = (await makeUser(gantry, 'counted')).id;
  });
  after(() => gantry.close());

  it('name no record as path ids or sudo: 404', async () => {
    for (const id of PAST_32_BITS) {
      for (const [path, message] of [
        [`/projects/${id}`, '404 Project Not Found'],
        [`/groups/${id}/members`, '404 Group Not Found'],
        [`/namespaces/${id}`, '404 Namespace Not Found'],
        [`/users/${id}/keys`, '404 User Not Found'],
        [`/projects/${projectId}/deploy_keys/${id}`, '404 Deploy Key Not Found'],
        [`/user?sudo=${id}`, `404 User with ID or username '${id}' Not Found`],
      ]) {
        const response = await gantry.api('GET', path);
        assert.deepEqual([response.status, response.json.message], [404, message], path);
      }
    }
  });

  it('are invalid integer parameters: 400', async () => {
    for (const value of PAST_32_BITS) {
      for (const [method, path, body, name] of [
        ['GET', `/groups?skip_groups[]=${value}`, undefined, 'skip_groups'],
        ['GET', `/projects/${projectId}/members?user_ids[]=${value}`, undefined, 'user_ids'],
        ['GET', `/personal_access_tokens?user_id=${value}`, undefined, 'user_id'],
        ['GET', `/projects?id_after=${value}`, undefined, 'id_after'],
        ['POST', `/projects/${projectId}/members`, { user_id: value, access_level: 30 }, 'user_id'],
        ['PUT', `/users/${userId}`, { projects_limit: value }, 'projects_limit'],
      ] as const) {
        const response = await gantry.api(method, path, { body });
        assert.deepEqual([response.status, response.json], [400, { error: `${name} is invalid` }], `${method} ${path} ${value}`);
      }
    }
  });

  it('keeps the largest 32-bit integer and negative ones working', async () => {
    assert.equal((await gantry.api('GET', '/projects?id_after=2147483647')).text, '[]');
    assert.equal((await gantry.api('GET', '/projects?id_before=-2147483648')).text, '[]');
    assert.equal((await gantry.api('GET', `/projects/2147483647`)).status, 404);
    assert.equal((await gantry.api('PUT', `/users/${userId}`, { body: { projects_limit: 2147483647 } })).json.projects_limit, 2147483647);
  });
});
