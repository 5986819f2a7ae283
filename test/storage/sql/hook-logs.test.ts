import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HOOK_EVENT_FLAGS, type HookEvents, type HookSettings } from '../../../src/storage/types-hooks.ts';
import { openCiTestDatabase, type CiTestDatabase } from './ci-fixtures.ts';

const NOW = '2026-11-30T05:00:00.000Z';
const SETTINGS: HookSettings = {
  url: 'https://hooks.example.com/in', name: '', description: '', token: null, enable_ssl_verification: true, push_events_branch_filter: null,
  branch_filter_strategy: 'wildcard', events: Object.fromEntries(HOOK_EVENT_FLAGS.map((flag) => [flag, false])) as HookEvents,
  repository_update_events: false, subgroup_events: false, member_events: false,
};

describe('webhook delivery logs storage', () => {
  let database: CiTestDatabase;

  before(async () => {
    database = await openCiTestDatabase();
  });
  after(() => database.close());

  it("keeps each hook's newest entries only, whatever the other hooks logged", async () => {
    const { hooks, hookDeliveries } = database.stores;
    const first = await hooks.create({ kind: 'system' }, SETTINGS, NOW);
    const second = await hooks.create({ kind: 'system' }, SETTINGS, NOW);
    const log = (hookId: number, data: string) => hookDeliveries.log({
      hook_id: hookId, trigger: 'system_hooks', url: SETTINGS.url, request_headers: {}, request_data: data, response_status: '200', response_headers: {},
      response_body: '', execution_duration: 0.01, internal_error_message: null, created_at: NOW,
    }, 3);
    await log(second.id, 'second 1');
    for (const index of [1, 2, 3, 4, 5]) await log(first.id, `first ${index}`);
    await log(second.id, 'second 2');
    const kept = async (hookId: number) => (await hookDeliveries.logs(hookId, {}, { limit: 10, offset: 0 })).logs.map((entry) => entry.request_data);
    assert.deepEqual(await kept(first.id), ['first 5', 'first 4', 'first 3']);
    assert.deepEqual(await kept(second.id), ['second 2', 'second 1']);
  });

  it('gives a lease up only while no delivery of the hook is queued, and only its holder', async () => {
    const { hooks, hookDeliveries } = database.stores;
    const hook = await hooks.create({ kind: 'system' }, SETTINGS, NOW);
    const other = await hooks.create({ kind: 'system' }, SETTINGS, NOW);
    const later = '2026-11-30T05:01:00.000Z';
    assert.equal(await hookDeliveries.lease(hook.id, 'sender', NOW, later), true);
    await hookDeliveries.enqueue([{ hook_id: other.id, trigger: 'system_hooks', event: {}, uuid: 'u1' }], NOW);
    assert.equal(await hookDeliveries.releaseIfIdle(hook.id, 'someone else'), false);
    await hookDeliveries.enqueue([{ hook_id: hook.id, trigger: 'system_hooks', event: {}, uuid: 'u2' }], NOW);
    assert.equal(await hookDeliveries.releaseIfIdle(hook.id, 'sender'), false, 'a delivery is queued');
    assert.equal(await hookDeliveries.leaseEnd(hook.id), later);
    await hookDeliveries.remove((await hookDeliveries.next(hook.id))!.id);
    assert.equal(await hookDeliveries.releaseIfIdle(hook.id, 'sender'), true, "another hook's delivery does not count");
    assert.equal(await hookDeliveries.leaseEnd(hook.id), null);
  });
});
