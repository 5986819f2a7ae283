import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { backoffDelay, TaskQueue, TaskWorker, type TaskHandler, type TaskWorkerOptions } from '../../../src/coordinator/services/task-queue.ts';
import { createLogger } from '../../../src/shared/logger.ts';
import { openDatabase } from '../../../src/storage/sql/database.ts';
import { migrateToLatest } from '../../../src/storage/sql/migrate.ts';
import { createSqlStores, type SqlStores } from '../../../src/storage/sql/stores/index.ts';
import type { TaskRecord } from '../../../src/storage/types-tasks.ts';
import { openCiTestDatabase, type CiTestDatabase } from '../../storage/sql/ci-fixtures.ts';

const logger = createLogger({ level: 'silent', destination: { write: () => {} } });

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('Task worker', () => {
  let database: CiTestDatabase & { url: string };
  let stores: SqlStores;
  const workers: TaskWorker[] = [];

  before(async () => {
    database = await openCiTestDatabase();
    stores = database.stores;
  });
  after(() => database.close());
  beforeEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop(1000)));
    await database.opened.db.deleteFrom('tasks').execute();
  });

  function worker(handlers: Record<string, TaskHandler>, options: Partial<TaskWorkerOptions> = {}, store = stores.tasks): TaskWorker {
    const created = new TaskWorker(store, { handlers, logger, pollIntervalMs: 10_000, ...options });
    workers.push(created);
    return created;
  }

  it('runs a task enqueued in this process at once (no poll wait), by kind, and removes it when done', async () => {
    const seen: unknown[] = [];
    // Its poll is 10 minutes away: an answer within the bounded wait is the wake-up's.
    const running = worker({ greet: async (task) => void seen.push(task.payload) }, { pollIntervalMs: 600_000 });
    running.start();
    await new Promise((resolve) => setTimeout(resolve, 50)); // the worker is now asleep
    const queue = new TaskQueue(stores.tasks, () => running.wake());
    const started = Date.now();
    const { task } = await queue.enqueue({ kind: 'greet', payload: { to: 'world' } });
    await waitFor(() => seen.length === 1, 'the handler');
    assert.ok(Date.now() - started < 60_000, 'woken, not polled');
    assert.deepEqual(seen, [{ to: 'world' }]);
    await waitFor(async () => (await stores.tasks.findById(task.id)) === undefined, 'completion');
    await stores.tasks.enqueue({ kind: 'unknown' }, new Date().toISOString());
    await running.drain();
    assert.equal((await stores.tasks.counts(new Date().toISOString())).find((count) => count.kind === 'unknown')?.ready, 1, 'kinds without a handler stay queued');
  });

  it('retries a failing task with growing back-off and buries it after max_attempts', async () => {
    let now = Date.parse('2026-11-22T10:00:00.000Z');
    const backoff = { baseMs: 1000, maxMs: 3000 };
    const failing = worker({ flaky: async () => Promise.reject(new Error('remote down')) }, { clock: () => now, backoff });
    const { task } = await stores.tasks.enqueue({ kind: 'flaky', maxAttempts: 4 }, new Date(now).toISOString());
    const runAts: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      await failing.drain();
      const stored = await stores.tasks.findById(task.id);
      assert.deepEqual([stored?.status, stored?.attempts, stored?.last_error], ['pending', attempt, 'remote down']);
      runAts.push(Date.parse(stored?.run_at ?? '') - now);
      now = Date.parse(stored?.run_at ?? '');
    }
    assert.deepEqual(runAts, [1000, 2000, 3000], 'doubling, capped at maxMs');
    assert.deepEqual([backoffDelay(1, backoff), backoffDelay(2, backoff), backoffDelay(5, backoff)], [1000, 2000, 3000]);
    await failing.drain();
    assert.equal((await stores.tasks.findById(task.id))?.status, 'dead');
  });

  it('runs again a task whose worker crashed mid-run, once its lease is over', async () => {
    const now = Date.now();
    const { task } = await stores.tasks.enqueue({ kind: 'job', payload: 1 }, new Date(now).toISOString());
    // A worker that claimed it and died: its lease ran out a second ago.
    await stores.tasks.claim({ owner: 'crashed', now: new Date(now).toISOString(), lockedUntil: new Date(now - 1000).toISOString() });
    const runs: TaskRecord[] = [];
    const survivor = worker({ job: async (claimed) => void runs.push(claimed) }, { releaseIntervalMs: 0, pollIntervalMs: 20 });
    survivor.start();
    await waitFor(() => runs.length === 1, 'the retried task');
    assert.equal(runs[0].id, task.id);
    assert.equal(runs[0].attempts, 2, 'the crashed claim counted as an attempt');
  });

  it('keeps the lease of a long task alive while it runs', async () => {
    let finish!: () => void;
    const blocker = new Promise<void>((resolve) => (finish = resolve));
    const slow = worker({ slow: () => blocker }, { leaseMs: 300, releaseIntervalMs: 0, pollIntervalMs: 20 });
    const { task } = await stores.tasks.enqueue({ kind: 'slow' }, new Date().toISOString());
    slow.start();
    await waitFor(async () => (await stores.tasks.findById(task.id))?.status === 'running', 'the claim');
    await new Promise((resolve) => setTimeout(resolve, 800));
    assert.equal((await stores.tasks.releaseExpired(new Date().toISOString())), 0, 'renewed, so not released');
    finish();
    await waitFor(async () => (await stores.tasks.findById(task.id)) === undefined, 'completion');
  });

  it('runs at most `concurrency` tasks at once and stops gracefully, waiting for them', async () => {
    let inFlight = 0;
    let peak = 0;
    let completed = 0;
    const handler: TaskHandler = async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 30));
      inFlight--;
      completed++;
    };
    const limited = worker({ work: handler }, { concurrency: 3 });
    for (let index = 0; index < 7; index++) await stores.tasks.enqueue({ kind: 'work' }, new Date().toISOString());
    limited.start();
    await waitFor(() => completed >= 1, 'some progress');
    await limited.stop();
    assert.equal(inFlight, 0, 'stop waited for running handlers');
    assert.equal(peak, 3);
    const left = completed;
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(completed, left, 'nothing runs after stop');
  });

  it('never runs one task in two workers (two connection pools on PostgreSQL)', async () => {
    const second = database.opened.dialect === 'postgres' ? openDatabase(database.url) : undefined;
    const secondStores = second ? createSqlStores(second.db) : stores;
    try {
      const runs = new Map<number, number>();
      const handler: TaskHandler = async (task) => {
        runs.set(task.id, (runs.get(task.id) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
      };
      const total = 200;
      for (let index = 0; index < total; index++) await stores.tasks.enqueue({ kind: 'count', payload: index }, new Date().toISOString());
      const a = worker({ count: handler }, { concurrency: 5, pollIntervalMs: 10 });
      const b = worker({ count: handler }, { concurrency: 5, pollIntervalMs: 10 }, secondStores.tasks);
      a.start();
      b.start();
      await waitFor(() => runs.size === total, 'every task', 20_000);
      await Promise.all([a.stop(), b.stop()]);
      assert.deepEqual([...runs.values()].filter((count) => count !== 1), [], 'each task ran exactly once');
    } finally {
      await second?.close();
    }
  });
});

describe('Task queue across a restart (SQLite file)', () => {
  let directory: string;

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'gantry-tasks-'));
  });
  after(() => rm(directory, { recursive: true, force: true }));

  it('keeps queued and half-run tasks when the database is closed and opened again', async () => {
    const file = join(directory, 'gantry.sqlite3');
    const first = openDatabase(file);
    await migrateToLatest(first.db, first.dialect);
    const before = createSqlStores(first.db);
    const now = Date.now();
    const halfRun = (await before.tasks.enqueue({ kind: 'later', payload: 'half-run' }, new Date(now).toISOString())).task;
    const queued = (await before.tasks.enqueue({ kind: 'later', payload: 'queued' }, new Date(now).toISOString())).task;
    const claimed = await before.tasks.claim({ owner: 'about-to-crash', now: new Date(now).toISOString(), lockedUntil: new Date(now + 50).toISOString(), kinds: ['later'] });
    assert.equal(claimed?.id, halfRun.id);
    await first.close();

    const second = openDatabase(file);
    await migrateToLatest(second.db, second.dialect);
    try {
      const ran: unknown[] = [];
      const restarted = new TaskWorker(createSqlStores(second.db).tasks, { handlers: { later: async (task) => void ran.push(task.payload) }, logger, releaseIntervalMs: 0, pollIntervalMs: 20 });
      restarted.start();
      await waitFor(() => ran.length === 2, 'both tasks');
      await restarted.stop();
      assert.deepEqual(ran.sort(), ['half-run', 'queued']);
      assert.equal(await createSqlStores(second.db).tasks.findById(queued.id), undefined, 'done and removed');
    } finally {
      await second.close();
    }
  });
});
