import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ciServicesOf } from '../../src/coordinator/app.ts';
import { HookThread } from '../../src/coordinator/hook-thread.ts';
import { mayLeaveIdle } from '../../src/shared/thread-priority.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { startTestCoordinator } from '../helpers/coordinator.ts';
import { idleThreads } from '../helpers/scheduling.ts';
import { hookReceiver, type HookReceiver } from './hooks-receiver.ts';

/** A SQLite file (tests otherwise run on an in-memory one, which no thread can share), or the PostgreSQL database of the run. */
function sharedDatabase(scratch: string): { databaseUrl?: string } {
  return process.env.GANTRY_TEST_DATABASE_URL ? {} : { databaseUrl: path.join(scratch, 'gantry.sqlite3') };
}

/** A coordinator on a database a thread can share, counting the webhook log inserts run on its own connection. */
async function coordinatorOnSharedDatabase(scratch: string, hooks: Record<string, unknown> = {}) {
  const inserts = { logs: 0 };
  const gantry = await startTestCoordinator({
    extra: {
      ...sharedDatabase(scratch),
      onStatement: (sql) => {
        if (sql.startsWith('insert into "web_hook_logs"')) inserts.logs += 1;
      },
      // A request's time limit far beyond the test's own bounds: a held request stays held however slow the machine.
      ci: { taskPollIntervalMs: 50, hooks: { retryBaseMs: 100, timeoutMs: 600_000, ...hooks } },
    },
  });
  const allowed = await gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } });
  assert.equal(allowed.status, 200, allowed.text);
  const project = await gantry.api('POST', '/projects', { body: { name: 'hooked', initialize_with_readme: true } });
  assert.equal(project.status, 201, project.text);
  let files = 0;
  return {
    gantry,
    inserts,
    projectId: Number(project.json.id),
    hookWorker: ciServicesOf(gantry.coordinator).hookWorker,
    async addHook(url: string): Promise<number> {
      const created = await gantry.api('POST', `/projects/${String(project.json.id)}/hooks`, { body: { url } });
      assert.equal(created.status, 201, created.text);
      return Number(created.json.id);
    },
    async commit(): Promise<string> {
      files += 1;
      const made = await gantry.api('POST', `/projects/${String(project.json.id)}/repository/commits`, {
        body: { branch: 'main', commit_message: `change ${files}`, actions: [{ action: 'create', file_path: `f${files}.txt`, content: `${files}\n` }] },
      });
      assert.equal(made.status, 201, made.text);
      return String(made.json.id);
    },
    async logged(hookId: number): Promise<string[]> {
      const events = await gantry.api('GET', `/projects/${String(project.json.id)}/hooks/${hookId}/events`);
      return events.list.map((entry) => String(entry.response_status));
    },
  };
}

describe('webhook deliveries in a thread of their own', () => {
  let scratch: string;
  let world: Awaited<ReturnType<typeof coordinatorOnSharedDatabase>>;
  const receivers: HookReceiver[] = [];
  let closed = false;
  const receiver = async (answer?: (count: number) => number | 'hold') => {
    const made = await hookReceiver(answer);
    receivers.push(made);
    return made;
  };

  before(async () => {
    scratch = mkdtempSync(path.join(tmpdir(), 'gantry-hook-thread-'));
    world = await coordinatorOnSharedDatabase(scratch);
  });
  after(async () => {
    for (const made of receivers) await made.close();
    if (!closed) await world.gantry.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('starts the thread with the first delivery and sends from it, not from the coordinator\'s connection', async () => {
    const { hookWorker } = world;
    assert.equal(hookWorker.mode, 'thread');
    assert.ok(hookWorker instanceof HookThread);
    assert.equal(hookWorker.threadRunning, false, 'no delivery yet, no thread');
    assert.equal(hookWorker.defersToRequests, false, 'no thread, no request scope');
    const target = await receiver();
    const hook = await world.addHook(target.base);
    const sha = await world.commit();
    await waitUntil(() => target.requests.length === 1, 'the delivery', { timeoutMs: 60_000 });
    assert.equal(target.requests[0]!.body.after, sha);
    assert.equal(hookWorker.threadRunning, true);
    assert.equal(hookWorker.defersToRequests, true, 'requests run in a scope once the thread runs');
    await waitUntil(async () => (await world.logged(hook)).length === 1, 'the logged delivery');
    assert.equal(world.inserts.logs, 0, "the log was written on the thread's connection");
    // Sending is background work: the thread runs under SCHED_IDLE where it may come back from it (root here).
    const mayComeBack = process.platform === 'linux' && mayLeaveIdle(readFileSync('/proc/self/status', 'utf8'), readFileSync('/proc/self/limits', 'utf8'));
    // It goes there at a claim that is not behind (less than 1 s late). On a loaded machine the first
    // delivery's claim can be late, and only a later claim tells again: a commit every 2 s gives one.
    const inBackground = async (): Promise<boolean> => {
      if (idleThreads().length === 1) return true;
      await world.commit();
      return false;
    };
    if (mayComeBack) await waitUntil(inBackground, 'the delivery thread in the background', { timeoutMs: 60_000, intervalMs: 2_000 });
    assert.equal(idleThreads().length, mayComeBack ? 1 : 0);
    assert.ok(!idleThreads().includes(process.pid), "the coordinator's own thread keeps its priority");
  });

  it("keeps each hook's order while another hook's receiver holds its request", async () => {
    const slow = await receiver((count) => (count === 1 ? 'hold' : 200));
    const fast = await receiver();
    await world.addHook(slow.base);
    await world.addHook(fast.base);
    const shas: string[] = [];
    for (let index = 0; index < 5; index += 1) shas.push(await world.commit());
    await waitUntil(() => fast.requests.length >= 5, 'the five pushes at the fast receiver', { timeoutMs: 60_000 });
    assert.equal(slow.requests.length, 1, 'the slow receiver still holds its first request');
    assert.deepEqual(fast.requests.map((entry) => entry.body.after), shas);
    slow.held.shift()!.writeHead(200).end();
    await waitUntil(() => slow.requests.length >= 5, 'the five pushes at the slow receiver', { timeoutMs: 60_000 });
    assert.deepEqual(slow.requests.map((entry) => entry.body.after), shas);
  });

  it('retries a failed delivery with the same event UUID', async () => {
    const flaky = await receiver((count) => (count === 1 ? 500 : 200));
    const hook = await world.addHook(flaky.base);
    await world.commit();
    await waitUntil(() => flaky.requests.length >= 2, 'the retry', { timeoutMs: 60_000 });
    assert.equal(flaky.requests[0]!.headers['x-gitlab-event-uuid'], flaky.requests[1]!.headers['x-gitlab-event-uuid']);
    await waitUntil(async () => (await world.logged(hook)).length === 2, 'both attempts logged');
    assert.deepEqual(await world.logged(hook), ['200', '500']);
  });

  it('sends nothing while stopped, and a start sends what was queued meanwhile, from the same thread', async () => {
    const { hookWorker } = world;
    assert.ok(hookWorker instanceof HookThread);
    const target = await receiver();
    await world.addHook(target.base);
    await hookWorker.stop(5_000);
    assert.equal(hookWorker.started, false);
    assert.equal(hookWorker.threadRunning, true, 'stopped, not ended');
    const sha = await world.commit();
    assert.equal(target.requests.length, 0, 'stopped: nothing sent');
    hookWorker.start();
    await waitUntil(() => target.requests.some((entry) => entry.body.after === sha), 'the delivery queued while stopped', { timeoutMs: 60_000 });
    assert.equal(world.inserts.logs, 0);
  });

  it('ends the thread when the coordinator closes', async () => {
    const { hookWorker } = world;
    assert.ok(hookWorker instanceof HookThread);
    assert.equal(hookWorker.threadRunning, true);
    await world.gantry.close();
    closed = true;
    assert.equal(hookWorker.threadRunning, false);
    assert.equal(hookWorker.started, false);
  });
});

describe('webhook deliveries forced in-process', () => {
  it("sends from the coordinator's thread and connection whatever the database", async () => {
    const scratch = mkdtempSync(path.join(tmpdir(), 'gantry-hook-thread-'));
    const world = await coordinatorOnSharedDatabase(scratch, { inProcess: true });
    const target = await hookReceiver();
    try {
      assert.equal(world.hookWorker.mode, 'in-process');
      assert.equal(world.hookWorker.defersToRequests, false, 'sent between requests: no request scope');
      const hook = await world.addHook(target.base);
      await world.commit();
      await waitUntil(async () => (await world.logged(hook)).length === 1, 'the logged delivery', { timeoutMs: 60_000 });
      assert.equal(world.inserts.logs, 1);
    } finally {
      await target.close();
      await world.gantry.close();
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
