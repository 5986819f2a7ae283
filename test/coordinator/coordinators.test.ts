import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { createCoordinator, type Coordinator, type CoordinatorOptions } from '../../src/coordinator/app.ts';
import { cleanUpAfterDeadInstances } from '../../src/coordinator/repository-reconciliation.ts';
import { testDatabase } from '../helpers/database.ts';

/**
 * Several coordinators on one PostgreSQL database and one data directory, in this process:
 * starting together on a fresh database, restarting beside a busy one, cleaning up after a
 * dead one, settings announced to the others, throttles counted once for all.
 */
const TOKEN = 'coordinators-root-token-0123456789';
const postgres = process.env.GANTRY_TEST_DATABASE_URL !== undefined;

interface Answer {
  status: number;
  json: Record<string, unknown>;
  text: string;
}

async function api(coordinator: Coordinator, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, extra: { remoteAddress?: string } = {}): Promise<Answer> {
  const response = await coordinator.app.inject({
    method,
    url: `/api/v4${url}`,
    headers: { 'private-token': TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    payload: body === undefined ? undefined : JSON.stringify(body),
    ...extra,
  });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(response.body) as Record<string, unknown>;
  } catch {
    // not JSON
  }
  return { status: response.statusCode, json, text: response.body };
}

/** A database and a data directory for several coordinators, and every coordinator started on them. */
async function cluster() {
  // Empty, not the migrated template: several coordinators migrating one database at once is under test.
  const database = await testDatabase({ fresh: true });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gantry-coordinators-'));
  const running = new Set<Coordinator>();
  return {
    dataDir,
    databaseUrl: database.url,
    async start(extra: Partial<CoordinatorOptions> = {}): Promise<Coordinator> {
      const coordinator = await createCoordinator({ dataDir, databaseUrl: database.url, rootToken: TOKEN, ci: { runTasks: false }, ...extra });
      running.add(coordinator);
      return coordinator;
    },
    async stop(coordinator: Coordinator): Promise<void> {
      running.delete(coordinator);
      await coordinator.close();
    },
    async close(): Promise<void> {
      for (const coordinator of running) await coordinator.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('several coordinators on one database', { skip: !postgres && 'needs PostgreSQL: bash scripts/with-postgres.sh' }, () => {
  const clusters: Array<Awaited<ReturnType<typeof cluster>>> = [];
  const newCluster = async () => {
    const made = await cluster();
    clusters.push(made);
    return made;
  };
  after(async () => {
    for (const made of clusters) await made.close();
  });

  it('starts three coordinators at the same moment on a fresh database: all come up, with one root and one registration token', async () => {
    for (let round = 0; round < 3; round++) {
      const fresh = await newCluster();
      const outcomes = await Promise.allSettled([fresh.start(), fresh.start(), fresh.start()]);
      const failures = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [String(outcome.reason)] : []));
      assert.deepEqual(failures, [], `round ${round}: every coordinator starts`);
      const started = outcomes.map((outcome) => (outcome as PromiseFulfilledResult<Coordinator>).value);
      assert.equal(started.filter((coordinator) => coordinator.createdRootToken !== undefined).length, 1, 'root is created once');
      const users = await api(started[2]!, 'GET', '/users?username=root');
      assert.equal(users.status, 200, users.text);
      const tokens = new Set<unknown>();
      for (const coordinator of started) tokens.add((await api(coordinator, 'GET', '/application/settings')).json.runners_registration_token);
      assert.equal(tokens.size, 1, 'one registration token for all');
      const instances = new Set(started.map((coordinator) => coordinator.context.instance.id));
      assert.deepEqual(new Set((await started[0]!.context.stores.instances.list()).map((row) => row.id)), instances, 'each recorded its instance');
      for (const coordinator of started) await fresh.stop(coordinator);
      const again = await fresh.start();
      assert.deepEqual((await again.context.stores.instances.list()).map((row) => row.id), [again.context.instance.id], 'stopped coordinators removed their rows');
      await fresh.stop(again);
    }
  });

  it('restarts a coordinator six times beside one creating projects: no 500, and a creation in flight is not finished as a deletion', async () => {
    const shared = await newCluster();
    const busy = await shared.start();
    // A creation in flight on the busy coordinator: its row is pending, marked with its instance.
    const inFlight = await api(busy, 'POST', '/projects', { name: 'in-flight', initialize_with_readme: true });
    assert.equal(inFlight.status, 201);
    const inFlightId = inFlight.json.id as number;
    await busy.context.stores.projects.update(inFlightId, { pending_delete: true, pending_instance_id: busy.context.instance.id });

    const statuses: number[] = [];
    const created: number[] = [];
    let stop = false;
    const creating = (async () => {
      for (let n = 0; !stop; n++) {
        const answer = await api(busy, 'POST', '/projects', { name: `busy-${n}`, initialize_with_readme: n % 2 === 0 });
        statuses.push(answer.status);
        if (answer.status !== 201) continue;
        created.push(answer.json.id as number);
        const commit = await api(busy, 'POST', `/projects/${String(answer.json.id)}/repository/commits`, {
          branch: 'main', commit_message: `c${n}`, actions: [{ action: 'create', file_path: `f${n}.txt`, content: `${n}\n` }],
        });
        statuses.push(commit.status);
      }
    })();
    for (let restart = 0; restart < 6; restart++) {
      const beside = await shared.start();
      const own = await api(beside, 'POST', '/projects', { name: `beside-${restart}`, initialize_with_readme: true });
      assert.equal(own.status, 201, own.text);
      await shared.stop(beside);
    }
    stop = true;
    await creating;
    assert.ok(created.length >= 6, `the busy coordinator kept creating (${created.length})`);
    assert.deepEqual(statuses.filter((status) => status >= 500), [], `no failures among ${statuses.length} answers`);
    assert.deepEqual([...new Set(statuses)].sort(), [201]);
    const row = await busy.context.stores.projects.findById(inFlightId);
    assert.equal(row?.pending_delete, true, "the busy coordinator's pending creation is still there");
    assert.equal(await busy.context.repositories.exists(inFlightId), true);
    for (const id of created) assert.equal((await api(busy, 'GET', `/projects/${id}`)).status, 200, `project ${id}`);
  });

  it("cleans up after a coordinator whose heartbeat stopped, and leaves a live one's work alone", async () => {
    const shared = await newCluster();
    const timing = { heartbeatIntervalMs: 1_000, staleAfterMs: 2_000, upkeepIntervalMs: 60_000 };
    const live = await shared.start({ instances: timing });
    const project = await api(live, 'POST', '/projects', { name: 'locked', initialize_with_readme: true });
    const victim = await api(live, 'POST', '/projects', { name: 'half-made', initialize_with_readme: true });
    const kept = await api(live, 'POST', '/projects', { name: 'kept-pending', initialize_with_readme: true });
    const { stores, repositories } = live.context;

    // What a coordinator killed mid-work leaves: its row, temporary files, an upload, a
    // project it was creating, a task lease, a ref lock of a commit.
    const dead = 'c0ffee00-dead-4dea-8dea-d0000000dead';
    await stores.instances.register({ id: dead, hostname: 'gone', pid: 1, version: 'test', started_at: new Date().toISOString() });
    const repositoriesDir = path.join(shared.dataDir, 'repositories');
    mkdirSync(path.join(repositoriesDir, '.tmp', dead, 'new-1.git', 'objects'), { recursive: true });
    mkdirSync(path.join(shared.dataDir, 'tmp', 'uploads', dead), { recursive: true });
    writeFileSync(path.join(shared.dataDir, 'tmp', 'uploads', dead, 'upload-1'), 'half an upload');
    await stores.projects.update(victim.json.id as number, { pending_delete: true, pending_instance_id: dead });
    const task = (await stores.tasks.enqueue({ kind: 'test.dead-lease' }, new Date().toISOString())).task;
    assert.ok(await stores.tasks.claim({ owner: dead, now: new Date().toISOString(), lockedUntil: new Date(Date.now() + 3_600_000).toISOString(), kinds: ['test.dead-lease'] }));
    const lock = path.join(repositoriesDir, `${String(project.json.id)}.git`, 'refs', 'heads', 'main.lock');
    writeFileSync(lock, '');
    utimesSync(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    // And a live coordinator's work in progress: a pending creation.
    await stores.projects.update(kept.json.id as number, { pending_delete: true, pending_instance_id: live.context.instance.id });

    const early = await cleanUpAfterDeadInstances(live.context);
    assert.deepEqual(early.repairs, [], 'nothing is touched while the heartbeat is recent');
    assert.ok(existsSync(path.join(repositoriesDir, '.tmp', dead)));

    await sleep(timing.staleAfterMs + 200);
    // A lock a live git process holds right now (git holds one for milliseconds).
    const freshLock = path.join(repositoriesDir, `${String(kept.json.id)}.git`, 'refs', 'heads', 'fresh.lock');
    writeFileSync(freshLock, '');
    const report = await cleanUpAfterDeadInstances(live.context);
    assert.ok(report.repairs.length >= 5, report.repairs.join('\n'));
    assert.deepEqual((await stores.instances.list()).map((row) => row.id), [live.context.instance.id], 'the dead row is gone; the live one kept beating');
    assert.deepEqual(readdirSync(path.join(repositoriesDir, '.tmp')).filter((name) => name !== live.context.instance.id), []);
    assert.equal(existsSync(path.join(shared.dataDir, 'tmp', 'uploads', dead)), false);
    assert.equal(await stores.projects.findById(victim.json.id as number), undefined, "the dead coordinator's creation is finished as a deletion");
    assert.equal(await repositories.exists(victim.json.id as number), false);
    assert.equal((await stores.tasks.findById(task.id))?.locked_until, new Date(0).toISOString(), 'its task lease ended');
    assert.equal(existsSync(lock), false, 'its ref lock is gone');
    assert.equal(existsSync(freshLock), true, "a live coordinator's lock stays");
    assert.equal((await stores.projects.findById(kept.json.id as number))?.pending_delete, true, "a live coordinator's pending creation stays");
    const commit = await api(live, 'POST', `/projects/${String(project.json.id)}/repository/commits`, { branch: 'main', commit_message: 'after', actions: [{ action: 'create', file_path: 'after.txt', content: 'x' }] });
    assert.equal(commit.status, 201, 'the branch takes commits again');
    assert.deepEqual((await cleanUpAfterDeadInstances(live.context)).repairs, [], 'nothing more to do');
  });

  it("tells every coordinator of a settings change at once (no waiting for another's copy to age)", async () => {
    const shared = await newCluster();
    const a = await shared.start();
    // B would keep its copy for ten minutes: only the announcement can tell it.
    const b = await shared.start({ settingsMaxAgeMs: 600_000 });
    assert.equal((await api(b, 'GET', '/application/settings')).json.max_artifacts_size, 100);
    const changed = await api(a, 'PUT', '/application/settings', { max_artifacts_size: 321 });
    assert.equal(changed.status, 200, changed.text);
    let seen: unknown;
    for (let attempt = 0; attempt < 100 && seen !== 321; attempt++) {
      await sleep(50);
      seen = (await api(b, 'GET', '/application/settings')).json.max_artifacts_size;
    }
    assert.equal(seen, 321, 'coordinator B never heard of the change made through A');
  });

  it('keeps both of two settings changes made at the same moment through two coordinators', async () => {
    const shared = await newCluster();
    const [a, b] = [await shared.start(), await shared.start()];
    for (let round = 0; round < 10; round++) {
      const [first, second] = await Promise.all([
        api(a, 'PUT', '/application/settings', { max_artifacts_size: 200 + round }),
        api(b, 'PUT', '/application/settings', { default_projects_limit: 300 + round }),
      ]);
      assert.equal(first.status, 200);
      assert.equal(second.status, 200);
      const stored = (await a.context.stores.settings.load())?.settings;
      assert.equal(stored?.max_artifacts_size, 200 + round, `round ${round}`);
      assert.equal(stored?.default_projects_limit, 300 + round, `round ${round}`);
    }
  });

  it('counts a throttle once across coordinators', async () => {
    const shared = await newCluster();
    const [a, b] = [await shared.start(), await shared.start()];
    await a.context.settings.update({ throttle_unauthenticated_enabled: true, throttle_unauthenticated_requests_per_period: 4, throttle_unauthenticated_period_in_seconds: 60 });
    await sleep(100);
    const statuses: number[] = [];
    for (let index = 0; index < 6; index++) {
      const coordinator = index % 2 === 0 ? a : b;
      const response = await coordinator.app.inject({ method: 'GET', url: '/api/v4/projects', remoteAddress: '203.0.113.7' });
      statuses.push(response.statusCode);
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
  });
});
