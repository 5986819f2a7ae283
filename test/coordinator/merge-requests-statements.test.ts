import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LINK_ISSUES_TASK } from '../../src/coordinator/services/planning/merge-requests/issue-links.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeUser } from './groups-fixtures.ts';
import { startMergeRequestFixture, type MergeRequestFixture } from './merge-requests-fixtures.ts';

/** A merge request list runs the same number of SQL statements whatever the page size (views are batched). */
describe('merge request list statements', () => {
  let gantry: TestCoordinator;
  let fx: MergeRequestFixture;
  let counting = false;
  let statements = 0;

  before(async () => {
    gantry = await startTestCoordinator({ extra: { cacheReads: false, onStatement: () => { if (counting) statements += 1; } } });
    fx = await startMergeRequestFixture(gantry);
    const reviewer = await makeUser(gantry, 'counted-reviewer');
    await addMember(gantry, { type: 'project', id: fx.project.id }, reviewer.id, 30);
    const milestone = await gantry.api('POST', `/projects/${fx.project.id}/milestones`, { body: { title: 'v1' } });
    for (let n = 0; n < 30; n += 1) {
      await fx.branch(`b${n}`);
      const body = { source_branch: `b${n}`, target_branch: 'main', title: `request ${n}`, labels: `a,b,l${n}`, milestone_id: milestone.json.id, assignee_ids: [fx.developer.id], reviewer_ids: [reviewer.id] };
      await fx.open(body, n % 2 === 0 ? fx.developer.token : undefined);
      if (n % 3 === 0) assert.equal((await gantry.api('PUT', `/projects/${fx.project.id}/merge_requests/${n + 1}`, { body: { state_event: 'close' } })).status, 200);
    }
    // The merge status checks and the issue links of the requests run in the background; counted lists must not meet them.
    const settled = async () => {
      const list = await gantry.api('GET', `/projects/${fx.project.id}/merge_requests?state=opened&per_page=30`);
      const linking = await gantry.coordinator.context.db.selectFrom('tasks').select('id').where('kind', '=', LINK_ISSUES_TASK).execute();
      return linking.length === 0 && list.list.every((mr) => mr.merge_status === 'can_be_merged' || mr.merge_status === 'cannot_be_merged');
    };
    await waitUntil(settled, 'the merge status checks and issue links of the requests', { timeoutMs: 120_000, intervalMs: 200 });
  });
  after(() => gantry.close());

  /** The fewest statements of three runs: the coordinator's own background work (heartbeats, settings) only ever adds some. */
  const count = async (path: string) => {
    const runs: number[] = [];
    let items: Array<Record<string, unknown>> = [];
    for (let run = 0; run < 3; run += 1) {
      statements = 0;
      counting = true;
      const response = await gantry.api('GET', path);
      counting = false;
      assert.equal(response.status, 200, response.text);
      runs.push(statements);
      items = response.list;
    }
    return { statements: Math.min(...runs), items };
  };

  it('runs as many statements for 30 requests as for 2, on the project, group and global lists', async () => {
    for (const base of [`/projects/${fx.project.id}/merge_requests?labels=a,b&`, `/groups/${fx.group.id}/merge_requests?`, '/merge_requests?scope=all&']) {
      const small = await count(`${base}per_page=2`);
      const large = await count(`${base}per_page=30`);
      assert.deepEqual([small.items.length, large.items.length], [2, 30], base);
      assert.equal(large.statements, small.statements, base);
      // Every row carries its own relations: the batching did not mix them up.
      assert.deepEqual(large.items.map((mr) => (mr.labels as string[]).at(-1)), large.items.map((mr) => `l${Number(mr.iid) - 1}`));
      assert.ok(large.items.every((mr) => (mr.reviewers as unknown[]).length === 1 && (mr.milestone as Record<string, unknown>).title === 'v1'));
    }
    const opened = await count(`/projects/${fx.project.id}/merge_requests?state=opened&per_page=30`);
    assert.equal(opened.items.length, 20);
  });
});
