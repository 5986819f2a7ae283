/** Activity events older than three years are deleted by a sweep on the task queue, in batches, the young ones kept. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ciServicesOf } from '../../src/coordinator/app.ts';
import { EVENT_PRUNING_TASK } from '../../src/coordinator/services/events/pruning.ts';
import type { NewEvent } from '../../src/storage/types-events.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

const DAY = 86_400_000;

describe('activity event pruning', () => {
  let gantry: TestCoordinator;
  let projectId = 0;
  let authorId = 0;

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50 } } });
    const created = await gantry.api('POST', '/projects', { body: { name: 'pruned' } });
    assert.equal(created.status, 201, created.text);
    projectId = created.json.id as number;
    authorId = (await gantry.api('GET', '/user')).json.id as number;
  });
  after(() => gantry.close());

  const event = (daysAgo: number, title: string): NewEvent => ({
    project_id: projectId, author_id: authorId, action: 'created', target_type: 'Issue', target_id: null, target_iid: null, target_title: title,
    push_data: null, note: null, confidential: false, created_at: new Date(Date.now() - daysAgo * DAY).toISOString(),
  });
  const titles = async (): Promise<string[]> => {
    const { items } = await gantry.coordinator.context.stores.activityEvents.list({ projectId, scope: null, sort: 'asc', confidential: 'all' }, { offset: 0, limit: 5_000 });
    return items.map((item) => item.target_title ?? '');
  };

  it('deletes every event past three years, over several batches, and keeps the younger ones', async () => {
    const { activityEvents } = gantry.coordinator.context.stores;
    const existing = (await titles()).length;
    for (let index = 0; index < 2_100; index++) await activityEvents.record(event(4 * 365, `old ${index}`));
    await activityEvents.record(event(3 * 365 - 2, 'almost three years'));
    await activityEvents.record(event(1, 'yesterday'));
    const removed = await ciServicesOf(gantry.coordinator).eventPruning.sweep();
    assert.equal(removed, 2_100);
    assert.deepEqual((await titles()).slice(existing), ['almost three years', 'yesterday']);
    assert.equal(await ciServicesOf(gantry.coordinator).eventPruning.sweep(), 0, 'nothing left to delete');
  });

  it('runs as a task of the durable queue', async () => {
    await gantry.coordinator.context.stores.activityEvents.record(event(5 * 365, 'queued away'));
    await gantry.coordinator.context.stores.tasks.enqueue({ kind: EVENT_PRUNING_TASK, dedupeKey: `${EVENT_PRUNING_TASK}-test`, maxAttempts: 1 }, new Date().toISOString());
    await waitUntil(async () => !(await titles()).includes('queued away'), 'the queued sweep to delete the old event');
    assert.ok((await titles()).includes('yesterday'));
  });
});
