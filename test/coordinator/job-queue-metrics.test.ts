import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PUSH_PIPELINE_TASK } from '../../src/coordinator/services/ci/pipelines/push.ts';
import { HOOK_DELIVERY_TASK } from '../../src/coordinator/services/hooks/hook-deliveries.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

/** GitLab's background-job metrics, read from the durable task queue (`/jobqueue/*`, `/sidekiq/*`). */
describe('job-queue metrics', () => {
  let gantry: TestCoordinator;
  const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

  before(async () => {
    gantry = await startTestCoordinator();
  });
  after(() => gantry.close());

  it('answers administrators only: 401 without a token, 403 for other users', async () => {
    const user = await gantry.createUser('metrics-reader');
    for (const path of ['/jobqueue/queue_metrics', '/sidekiq/compound_metrics']) {
      assert.equal((await gantry.api('GET', path, { token: null })).status, 401);
      const refused = await gantry.api('GET', path, { token: user.token });
      assert.equal(refused.status, 403);
      assert.deepEqual(refused.json, { message: '403 Forbidden' });
    }
  });

  it('reports backlog and latency per task kind, this coordinator with its busy count, and the totals', async () => {
    const { stores, instance } = gantry.coordinator.context;
    const before = (await gantry.api('GET', '/jobqueue/job_stats')).json.jobs as Record<string, number>;
    // Kinds no handler claims, so that only this test moves them.
    await stores.tasks.enqueue({ kind: 'test.waiting', runAt: at(-60_000) }, at(0));
    await stores.tasks.enqueue({ kind: 'test.waiting', runAt: at(-5_000) }, at(0));
    await stores.tasks.enqueue({ kind: 'test.later', runAt: at(3_600_000) }, at(0));
    for (const outcome of ['done', 'retry', 'dead', 'held'] as const) {
      const { task } = await stores.tasks.enqueue({ kind: 'test.worked', maxAttempts: 1 }, at(-1_000));
      const claimed = await stores.tasks.claim({ owner: instance.id, now: at(0), lockedUntil: at(60_000), kinds: ['test.worked'] });
      assert.equal(claimed?.id, task.id);
      if (outcome === 'done') assert.ok(await stores.tasks.complete(task.id, instance.id));
      if (outcome === 'retry') assert.ok(await stores.tasks.fail(task.id, instance.id, 'boom', at(3_600_000), at(0)));
      if (outcome === 'dead') assert.ok(await stores.tasks.fail(task.id, instance.id, 'boom', null, at(0)));
    }

    const queues = (await gantry.api('GET', '/jobqueue/queue_metrics')).json.queues as Record<string, { backlog: number; latency: number }>;
    assert.equal(queues['test.waiting']?.backlog, 2);
    assert.ok(queues['test.waiting']!.latency >= 59 && queues['test.waiting']!.latency < 120, String(queues['test.waiting']!.latency));
    assert.deepEqual(queues['test.later'], { backlog: 0, latency: 0 });
    assert.deepEqual(queues[PUSH_PIPELINE_TASK], { backlog: 0, latency: 0 }, 'the kinds the worker runs are listed while idle');
    assert.deepEqual(queues[HOOK_DELIVERY_TASK], { backlog: 0, latency: 0 }, 'the webhook delivery worker is reported like the others');

    const processes = (await gantry.api('GET', '/sidekiq/process_metrics')).json.processes as Array<Record<string, unknown>>;
    const mine = processes.find((listed) => listed.pid === process.pid);
    assert.ok(mine, JSON.stringify(processes));
    assert.equal(mine.busy, 1);
    assert.equal(mine.tag, `gantry ${instance.id}`);
    assert.ok(Array.isArray(mine.queues) && mine.queues.length > 0 && Array.isArray(mine.labels));
    assert.ok((mine.queues as string[]).includes(HOOK_DELIVERY_TASK) && (mine.queues as string[]).includes(PUSH_PIPELINE_TASK), String(mine.queues));
    // The CI task worker's 4 and the webhook delivery worker's 8 (both defaults).
    assert.equal(mine.concurrency, 12);

    // Other tasks (the coordinator's own) may have run meanwhile; these four attempts are the test's.
    const stats = (await gantry.api('GET', '/jobqueue/job_stats')).json;
    const jobs = stats.jobs as Record<string, number>;
    assert.deepEqual(
      { processed: jobs.processed! - before.processed!, failed: jobs.failed! - before.failed!, enqueued: jobs.enqueued! - before.enqueued!, dead: jobs.dead! - before.dead! },
      { processed: 3, failed: 2, enqueued: 2, dead: 1 },
    );
    const compound = (await gantry.api('GET', '/sidekiq/compound_metrics')).json;
    assert.deepEqual(Object.keys(compound).sort(), ['jobs', 'processes', 'queues']);
    assert.deepEqual(compound.jobs, stats.jobs);
  });
});
