import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { within } from '../helpers/bounded.ts';
import { makeGroup, makeProject } from './groups-fixtures.ts';

/** Per-project iids of issues and milestones, and per-group iids of group milestones, under concurrent creation. */
describe('planning iids', () => {
  let gantry: TestCoordinator;
  let projectIds: number[];
  let groupId: number;

  before(async () => {
    gantry = await startTestCoordinator();
    const group = await makeGroup(gantry, 'iids', { visibility: 'private' });
    groupId = group.id;
    projectIds = [(await makeProject(gantry, group.id, 'one')).id, (await makeProject(gantry, group.id, 'two')).id];
  });
  after(() => gantry.close());

  const issue = (projectId: number, title: string) => {
    const now = new Date().toISOString();
    return {
      project_id: projectId, author_id: 1, title, description: null, state: 'opened' as const, confidential: false, discussion_locked: null,
      milestone_id: null, due_date: null, time_estimate: 0, total_time_spent: 0, closed_at: null, closed_by_id: null, created_at: now, updated_at: now,
    };
  };

  it('gives 20 concurrent issue creations in one project iids 1..20, and another project its own 1..5', async () => {
    const { issues } = gantry.coordinator.context.stores;
    const [first, second] = projectIds as [number, number];
    const created = await within(
      Promise.all([
        ...Array.from({ length: 20 }, (_, n) => issues.create(issue(first, `issue ${n}`), { assigneeIds: [1] })),
        ...Array.from({ length: 5 }, (_, n) => issues.create(issue(second, `other ${n}`), {})),
      ]),
      60_000,
      '25 issue creations',
    );
    const iidsOf = (projectId: number) => created.filter((row) => row.project_id === projectId).map((row) => row.iid).sort((a, b) => a - b);
    assert.deepEqual(iidsOf(first), Array.from({ length: 20 }, (_, n) => n + 1));
    assert.deepEqual(iidsOf(second), [1, 2, 3, 4, 5]);
    const assignees = await issues.assigneesOf(created.map((row) => row.id));
    assert.equal([...assignees.values()].filter((ids) => ids.length === 1 && ids[0] === 1).length, 20);
  });

  it('numbers project milestones per project and group milestones per group, concurrently', async () => {
    const { milestones } = gantry.coordinator.context.stores;
    const now = new Date().toISOString();
    const milestone = (owner: { project_id: number | null; group_id: number | null }, title: string) =>
      milestones.create({ ...owner, title, description: null, state: 'active', due_date: null, start_date: null, created_at: now, updated_at: now });
    const created = await within(
      Promise.all([
        ...Array.from({ length: 10 }, (_, n) => milestone({ project_id: projectIds[0]!, group_id: null }, `p${n}`)),
        ...Array.from({ length: 10 }, (_, n) => milestone({ project_id: null, group_id: groupId }, `g${n}`)),
      ]),
      60_000,
      '20 milestone creations',
    );
    const expected = Array.from({ length: 10 }, (_, n) => n + 1);
    assert.deepEqual(created.filter((row) => row.group_id === null).map((row) => row.iid).sort((a, b) => a - b), expected);
    assert.deepEqual(created.filter((row) => row.group_id === groupId).map((row) => row.iid).sort((a, b) => a - b), expected);
  });
});
