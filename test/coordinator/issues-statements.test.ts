import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup, makeProject, makeUser } from './groups-fixtures.ts';

/** An issue list, and an issue's notes, run the same number of SQL statements whatever the page size (views are batched). */
describe('issue list statements', () => {
  let gantry: TestCoordinator;
  let counting = false;
  let statements = 0;
  let projectId: number;

  before(async () => {
    gantry = await startTestCoordinator({ extra: { cacheReads: false, onStatement: () => { if (counting) statements += 1; } } });
    const group = await makeGroup(gantry, 'counted', { visibility: 'private' });
    projectId = (await makeProject(gantry, group.id, 'app')).id;
    const assignee = await makeUser(gantry, 'counted-dev');
    await gantry.api('POST', `/projects/${projectId}/members`, { body: { user_id: assignee.id, access_level: 30 } });
    const milestone = await gantry.api('POST', `/projects/${projectId}/milestones`, { body: { title: 'v1' } });
    for (let n = 0; n < 30; n += 1) {
      const body = { title: `issue ${n}`, labels: `a,b,l${n}`, milestone_id: milestone.json.id, assignee_ids: [assignee.id] };
      assert.equal((await gantry.api('POST', `/projects/${projectId}/issues`, { body })).status, 201);
      // Votes on every other issue: the views count them in one statement for the whole page.
      if (n % 2 === 0) assert.equal((await gantry.api('POST', `/projects/${projectId}/issues/${n + 1}/award_emoji`, { body: { name: 'thumbsup' } })).status, 201);
    }
    // Notes by several authors on several issues: counts and authors are read once per page too.
    for (let n = 1; n <= 30; n += 1) {
      const token = n % 2 === 0 ? assignee.token : undefined;
      assert.equal((await gantry.api('POST', `/projects/${projectId}/issues/${1 + (n % 3)}/notes`, { body: { body: `note ${n}` }, token })).status, 201);
    }
    for (let n = 0; n < 30; n += 1) await gantry.api('POST', `/projects/${projectId}/issues/1/notes`, { body: { body: `more ${n}` }, token: n % 2 === 0 ? assignee.token : undefined });
  });
  after(() => gantry.close());

  /** The fewest statements of eight runs: the coordinator's own background work (task polls, heartbeats, settings) only ever adds some, and under load it can land in several runs. */
  const count = async (query: string, path = `/projects/${projectId}/issues`) => {
    const runs: number[] = [];
    let items: Array<Record<string, unknown>> = [];
    for (let run = 0; run < 8; run += 1) {
      statements = 0;
      counting = true;
      const response = await gantry.api('GET', `${path}${query}`);
      counting = false;
      assert.equal(response.status, 200);
      runs.push(statements);
      items = response.list;
    }
    return { statements: Math.min(...runs), items };
  };

  it('runs as many statements for 30 issues as for 2, on the labelled list and the plain one', async () => {
    const small = await count('?labels=a,b&state=opened&per_page=2');
    const large = await count('?labels=a,b&state=opened&per_page=30');
    assert.deepEqual([small.items.length, large.items.length], [2, 30]);
    assert.deepEqual(large.items.map((issue) => issue.upvotes), large.items.map((issue) => (Number(issue.iid) % 2 === 1 ? 1 : 0)));
    assert.equal(large.statements, small.statements);
    assert.equal((await count('?per_page=30')).statements, small.statements);
    assert.equal((await count('?per_page=30&my_reaction_emoji=thumbsup')).items.length, 15);
  });

  it('counts user notes for the whole page at once', async () => {
    const response = await gantry.api('GET', `/projects/${projectId}/issues?sort=asc&per_page=3`);
    assert.deepEqual(response.list.map((issue) => issue.user_notes_count), [40, 10, 10]);
  });

  it('runs as many statements for 30 notes as for 2', async () => {
    const notes = `/projects/${projectId}/issues/1/notes`;
    const small = await count('?per_page=2', notes);
    const large = await count('?per_page=30', notes);
    assert.deepEqual([small.items.length, large.items.length], [2, 30]);
    assert.equal(large.statements, small.statements);
  });
});
