import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup, makeProject, makeUser, type TestUser } from './groups-fixtures.ts';

/** The todo list runs the same number of SQL statements whatever its page size (visibility in the query, views batched). */
describe('todo list statements', () => {
  let gantry: TestCoordinator;
  let counting = false;
  let statements = 0;
  let assignee: TestUser;

  before(async () => {
    gantry = await startTestCoordinator({ extra: { cacheReads: false, onStatement: () => { if (counting) statements += 1; } } });
    const group = await makeGroup(gantry, 'todo-counted', { visibility: 'private' });
    const projectId = (await makeProject(gantry, group.id, 'app')).id;
    assignee = await makeUser(gantry, 'todo-counted-dev');
    await gantry.api('POST', `/projects/${projectId}/members`, { body: { user_id: assignee.id, access_level: 20 } });
    for (let n = 0; n < 30; n += 1) {
      const body = { title: `issue ${n}`, labels: 'a', confidential: n % 2 === 0, assignee_ids: [assignee.id] };
      assert.equal((await gantry.api('POST', `/projects/${projectId}/issues`, { body })).status, 201);
    }
  });
  after(() => gantry.close());

  /** The fewest statements of three runs: the coordinator's own background work only ever adds some. */
  const count = async (query: string) => {
    const runs: number[] = [];
    let items = 0;
    for (let run = 0; run < 3; run += 1) {
      statements = 0;
      counting = true;
      const response = await gantry.api('GET', `/todos${query}`, { token: assignee.token });
      counting = false;
      assert.equal(response.status, 200);
      runs.push(statements);
      items = response.list.length;
    }
    return { statements: Math.min(...runs), items };
  };

  it('runs as many statements for 30 todos as for 2', async () => {
    const small = await count('?per_page=2');
    const large = await count('?per_page=30');
    assert.deepEqual([small.items, large.items], [2, 30]);
    assert.equal(large.statements, small.statements);
  });
});
