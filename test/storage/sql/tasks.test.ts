import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { SqlStores } from '../../../src/storage/sql/stores/index.ts';
import { openCiTestDatabase, type CiTestDatabase } from './ci-fixtures.ts';

const T0 = '2026-11-22T10:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

describe('Durable task queue storage', () => {
  let database: CiTestDatabase;
  let stores: SqlStores;

  before(async () => {
    database = await openCiTestDatabase();
    stores = database.stores;
  });
  after(() => database.close());
  beforeEach(async () => {
    await database.opened.db.deleteFrom('tasks').execute();
  });

  const claim = (owner: string, seconds = 0, kinds?: string[]) => stores.tasks.claim({ owner, now: at(seconds), lockedUntil: at(seconds + 60), kinds });

  it('claims due tasks by run_at with a lease, and completes them for their owner only', async () => {
    const later = (await stores.tasks.enqueue({ kind: 'b', payload: { n: 2 }, runAt: at(10) }, T0)).task;
    const first = (await stores.tasks.enqueue({ kind: 'a', payload: { n: 1 } }, T0)).task;
    assert.deepEqual([first.status, first.attempts, first.max_attempts, first.payload], ['pending', 0, 5, { n: 1 }]);
    const claimed = await claim('w1');
    assert.equal(claimed?.id, first.id);
    assert.deepEqual([claimed?.status, claimed?.attempts, claimed?.locked_by, claimed?.locked_until], ['running', 1, 'w1', at(60)]);
    assert.equal(await claim('w1'), undefined, 'the other task is not due yet');
    assert.equal(await stores.tasks.nextRunAt(), at(10));
    assert.equal(await claim('w1', 20, ['a']), undefined, 'kind filter');
    assert.equal((await claim('w1', 20, ['a', 'b']))?.id, later.id);
    assert.equal(await stores.tasks.complete(first.id, 'w2'), false, 'not the owner');
    assert.equal(await stores.tasks.complete(first.id, 'w1'), true);
    assert.equal(await stores.tasks.findById(first.id), undefined);
  });

  it('keeps one pending task per dedupe key, and takes a new one once the first is running', async () => {
    const original = await stores.tasks.enqueue({ kind: 'sync', dedupeKey: 'project:1' }, T0);
    const twin = await stores.tasks.enqueue({ kind: 'sync', dedupeKey: 'project:1' }, T0);
    assert.deepEqual([original.deduplicated, twin.deduplicated, twin.task.id], [false, true, original.task.id]);
    const concurrent = await Promise.all(Array.from({ length: 10 }, () => stores.tasks.enqueue({ kind: 'sync', dedupeKey: 'project:2' }, T0)));
    assert.equal(new Set(concurrent.map((result) => result.task.id)).size, 1);
    assert.equal(concurrent.filter((result) => !result.deduplicated).length, 1);
    await claim('w1');
    const afterClaim = await stores.tasks.enqueue({ kind: 'sync', dedupeKey: 'project:1' }, T0);
    assert.equal(afterClaim.deduplicated, false, 'the running task may have read stale state: a new one is queued');
  });

  it('enqueues several tasks in one call, leaving out those whose dedupe key a pending task has', async () => {
    const pending = (await stores.tasks.enqueue({ kind: 'send', dedupeKey: 'hook:1' }, T0)).task;
    await stores.tasks.enqueue({ kind: 'send', dedupeKey: 'hook:2' }, T0);
    await claim('w1'); // hook:1's task runs: a new one for it is queued
    await stores.tasks.enqueueAll([
      { kind: 'send', payload: { hook: 1 }, dedupeKey: 'hook:1' },
      { kind: 'send', payload: { hook: 2 }, dedupeKey: 'hook:2' },
      { kind: 'send', payload: { hook: 3 }, dedupeKey: 'hook:3', runAt: at(5), maxAttempts: 2 },
      { kind: 'send', payload: { hook: 3 }, dedupeKey: 'hook:3' },
      { kind: 'plain', payload: 'no key' },
    ], T0);
    await stores.tasks.enqueueAll([], T0);
    const rows = await database.opened.db.selectFrom('tasks').select(['id', 'kind', 'payload', 'status', 'dedupe_key', 'run_at', 'max_attempts']).orderBy('id').execute();
    assert.deepEqual(
      rows.map((row) => [row.dedupe_key, row.status, JSON.parse(row.payload) as unknown, row.run_at, row.max_attempts]),
      [
        ['hook:1', 'running', null, T0, 5],
        ['hook:2', 'pending', null, T0, 5],
        ['hook:1', 'pending', { hook: 1 }, T0, 5],
        ['hook:3', 'pending', { hook: 3 }, at(5), 2],
        [null, 'pending', 'no key', T0, 5],
      ],
    );
    assert.equal(rows[0]?.id, pending.id);
  });

  it('reschedules a failed attempt, buries the last one, and counts both', async () => {
    const { task } = await stores.tasks.enqueue({ kind: 'flaky', maxAttempts: 2 }, T0);
    await claim('w1');
    assert.equal(await stores.tasks.fail(task.id, 'w2', 'not mine', at(5), at(1)), false);
    assert.equal(await stores.tasks.fail(task.id, 'w1', 'boom 1', at(5), at(1)), true);
    const retrying = await stores.tasks.findById(task.id);
    assert.deepEqual([retrying?.status, retrying?.run_at, retrying?.last_error, retrying?.locked_by], ['pending', at(5), 'boom 1', null]);
    assert.deepEqual(await stores.tasks.counts(at(2)), [{ kind: 'flaky', ready: 0, scheduled: 1, running: 0, dead: 0, retrying: 1, oldest_ready_at: null }]);
    assert.deepEqual(await stores.tasks.counts(at(6)), [{ kind: 'flaky', ready: 1, scheduled: 0, running: 0, dead: 0, retrying: 1, oldest_ready_at: at(5) }]);
    assert.equal((await claim('w1', 6))?.attempts, 2);
    assert.equal(await stores.tasks.fail(task.id, 'w1', 'boom 2', null, at(7)), true);
    assert.equal((await stores.tasks.findById(task.id))?.status, 'dead');
    assert.deepEqual((await stores.tasks.listDead(10)).map((dead) => dead.last_error), ['boom 2']);
    assert.equal((await stores.tasks.counts(at(8)))[0].dead, 1);
    assert.equal(await claim('w1', 100), undefined, 'dead tasks are never claimed');
  });

  it('releases the leases of crashed workers: retried, buried after the last attempt, or dropped for a pending twin', async () => {
    const retried = (await stores.tasks.enqueue({ kind: 'k', payload: 'retried' }, T0)).task;
    const lastTry = (await stores.tasks.enqueue({ kind: 'k', payload: 'last', maxAttempts: 1 }, at(1))).task;
    const twinned = (await stores.tasks.enqueue({ kind: 'k', payload: 'twinned', dedupeKey: 'key' }, at(2))).task;
    const kept = (await stores.tasks.enqueue({ kind: 'k', payload: 'kept' }, at(3))).task;
    for (let index = 0; index < 3; index++) await claim('crashed', 3);
    await stores.tasks.claim({ owner: 'alive', now: at(3), lockedUntil: at(1000) });
    const twin = (await stores.tasks.enqueue({ kind: 'k', dedupeKey: 'key' }, at(4))).task;

    assert.equal(await stores.tasks.releaseExpired(at(30)), 0, 'no lease has ended yet');
    assert.equal(await stores.tasks.extend(kept.id, 'alive', at(2000)), true);
    assert.equal(await stores.tasks.releaseExpired(at(100)), 3);
    assert.deepEqual([(await stores.tasks.findById(retried.id))?.status, (await stores.tasks.findById(retried.id))?.last_error], ['pending', 'lease expired']);
    assert.equal((await stores.tasks.findById(lastTry.id))?.status, 'dead');
    assert.equal(await stores.tasks.findById(twinned.id), undefined);
    assert.equal((await stores.tasks.findById(twin.id))?.status, 'pending');
    assert.equal((await stores.tasks.findById(kept.id))?.status, 'running', 'a renewed lease is kept');
    assert.equal((await claim('next', 100))?.id, retried.id, 'the released task runs again');
  });
});
