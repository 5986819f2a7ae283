/**
 * /-/readiness checks this coordinator's heartbeat (`instance_check`): ok while its row is
 * recorded and its heartbeat recent; 503 once the heartbeat cannot be written for longer than
 * the time after which other coordinators take it for dead. Runs on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCoordinator } from '../../src/coordinator/app.ts';
import { CoordinatorInstance } from '../../src/coordinator/services/instance/instances.ts';
import { instanceCheck } from '../../src/coordinator/services/monitoring/service-checks.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

const TIMING = { heartbeatIntervalMs: 50, staleAfterMs: 250 };

async function readiness(gantry: TestCoordinator, url = '/-/readiness') {
  const response = await gantry.coordinator.app.inject({ method: 'GET', url, remoteAddress: '127.0.0.1' });
  return { status: response.statusCode, body: JSON.parse(response.body) as Record<string, unknown> };
}

describe('the instance check of /-/readiness', () => {
  let gantry: TestCoordinator;
  before(async () => {
    gantry = await startTestCoordinator({ extra: { instances: TIMING } });
  });
  after(() => gantry.close());

  it('answers ok while the heartbeat is written', async () => {
    const { instance } = gantry.coordinator.context;
    const firstBeat = instance.health().last_heartbeat_at;
    await waitUntil(() => instance.health().last_heartbeat_at !== firstBeat, 'a heartbeat after the registration');
    assert.deepEqual(await readiness(gantry), { status: 200, body: { status: 'ok', instance_check: [{ status: 'ok' }] } });
  });

  it('the row removed by another coordinator (taken for dead): the next heartbeat records it again, and readiness stays ok', async () => {
    const { instance, stores } = gantry.coordinator.context;
    assert.equal(await stores.instances.removeIfStale(instance.id, null), true);
    await waitUntil(async () => (await stores.instances.list()).some((row) => row.id === instance.id) && instance.health().registered, 'the instance row recorded again');
    assert.equal((await readiness(gantry)).status, 200);
    assert.equal(instance.health().healthy, true);
  });

  it('the database unreachable: once the heartbeat is stale, readiness answers 503 with the heartbeat error; liveness stays ok', async () => {
    const { context } = gantry.coordinator;
    await context.db.destroy();
    await waitUntil(async () => (await readiness(gantry)).status === 503, 'readiness failing', { timeoutMs: 10_000 });
    const failed = await readiness(gantry);
    assert.equal(failed.body.status, 'failed');
    const [result] = failed.body.instance_check as Array<{ status: string; message: string }>;
    assert.equal(result!.status, 'failed');
    const expected = new RegExp(`^coordinator instance ${context.instance.id}: no heartbeat written since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\(.+\\)$`);
    assert.match(result!.message, expected);
    const live = await gantry.coordinator.app.inject({ method: 'GET', url: '/-/liveness', remoteAddress: '127.0.0.1' });
    assert.equal(live.statusCode, 200);
  });
});

describe('instanceCheck over a recorded instance', () => {
  let gantry: TestCoordinator;
  before(async () => {
    gantry = await startTestCoordinator();
  });
  after(() => gantry.close());

  it('fails before the row is recorded, passes after, and fails once the last heartbeat is older than stale-after', async () => {
    let now = Date.parse('2026-01-02T03:04:05.000Z');
    const instance = new CoordinatorInstance(
      { store: gantry.coordinator.context.stores.instances, logger: createLogger({ level: 'silent' }), singleProcess: false, clock: () => now },
      { heartbeatIntervalMs: 1_000, staleAfterMs: 3_000 },
    );
    const check = instanceCheck(instance);
    const signal = new AbortController().signal;
    assert.deepEqual(await check.run(signal), [{ success: false, message: `coordinator instance ${instance.id} is not recorded in the database` }]);
    await instance.register();
    assert.deepEqual(await check.run(signal), [{ success: true }]);
    now += 2_999;
    assert.deepEqual(await check.run(signal), [{ success: true }]);
    now += 1;
    assert.deepEqual(await check.run(signal), [{ success: false, message: `coordinator instance ${instance.id}: no heartbeat written since 2026-01-02T03:04:05.000Z` }]);
    await instance.stop();
    assert.equal((await gantry.coordinator.context.stores.instances.list()).some((row) => row.id === instance.id), false);
  });
});

describe('instance timings given to createCoordinator', () => {
  it('refuses intervals a timer cannot wait and a stale-after shorter than two heartbeats, naming the option', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gantry-instance-timing-'));
    try {
      const refused = [
        [{ upkeepIntervalMs: 0 }, 'instances.upkeepIntervalMs must be a whole number of milliseconds from 1 to 2147483647 (got 0)'],
        [{ heartbeatIntervalMs: 2 ** 31 }, 'instances.heartbeatIntervalMs must be a whole number of milliseconds from 1 to 2147483647 (got 2147483648)'],
        [{ heartbeatIntervalMs: 1_000, staleAfterMs: 1_500 }, 'instances.staleAfterMs (1500) must span at least two heartbeats (instances.heartbeatIntervalMs 1000)'],
      ] as const;
      for (const [instances, message] of refused) {
        await assert.rejects(createCoordinator({ dataDir, databaseUrl: ':memory:', instances }), { message });
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
