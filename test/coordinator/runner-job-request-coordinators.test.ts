import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { turnBudget } from '../helpers/bounded.ts';
import { startTwoCoordinators, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * Two coordinators on one PostgreSQL database: a job made pending through one wakes a long
 * poll held by the other (LISTEN/NOTIFY), and concurrent pollers on both never get the same
 * job twice nor leave one behind (FOR UPDATE SKIP LOCKED).
 */
const postgres = process.env.GANTRY_TEST_DATABASE_URL !== undefined;
/** Far more requests than 40 jobs among 20 runners take, conflicts included: a job handed out again and again fails the test. */
const REQUESTS_PER_RUNNER = 200;

describe('POST /jobs/request across coordinators', { skip: !postgres && 'needs PostgreSQL: bash scripts/with-postgres.sh' }, () => {
  let a: RunnerJobsFixture;
  let b: RunnerJobsFixture;
  let pair: Awaited<ReturnType<typeof startTwoCoordinators>> | undefined;

  before(async () => {
    pair = await startTwoCoordinators({ jobRequestLongPollSeconds: 30 });
    ({ a, b } = pair);
  });
  after(async () => {
    await pair?.close();
  });

  it('wakes a long poll held by coordinator B when a job becomes pending through coordinator A', async () => {
    const project = await a.ciProject('across', 'job:\n  script: [make]\n');
    const runner = await a.register(project.runners_token);
    const first = await b.requestJob(runner.token);
    assert.equal(first.status, 204);
    const held = b.requestJob(runner.token, first.headers.get('x-gitlab-last-update') ?? '');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const queuedAt = Date.now();
    const pipelineId = await a.runPipeline(project.id);
    const answer = await held;
    const latency = Date.now() - queuedAt;
    assert.equal(answer.status, 201, answer.text);
    assert.ok(latency < 10_000, `answered ${latency} ms after the job was queued on A, far below the 30 s poll`);
    const pipeline = await a.gantry.api('GET', `/projects/${project.id}/pipelines/${pipelineId}`);
    assert.equal(pipeline.json.status, 'running');
  });

  it('hands 40 jobs to 20 concurrent pollers on both coordinators: none twice, none left', async () => {
    const names = Array.from({ length: 40 }, (_, index) => `job${index}`);
    const project = await a.ciProject('drain', names.map((name) => `${name}:\n  script: [make]\n`).join(''));
    const runners = await Promise.all(Array.from({ length: 20 }, () => a.register(project.runners_token)));
    const pipelineId = await a.runPipeline(project.id);
    const taken: number[] = [];
    let conflicts = 0;
    await Promise.all(
      runners.map(async (runner, index) => {
        const coordinator = index % 2 === 0 ? a : b;
        const budget = turnBudget(REQUESTS_PER_RUNNER, () => `runner ${index} asking for jobs (taken so far: ${taken.join(', ')})`);
        for (;;) {
          budget.next();
          const answer = await coordinator.requestJob(runner.token);
          if (answer.status === 409) conflicts += 1;
          else if (answer.status === 201) taken.push(answer.json.id as number);
          else if (answer.status === 204) return;
          else assert.fail(`unexpected ${answer.status} ${answer.text}`);
        }
      }),
    );
    assert.equal(new Set(taken).size, taken.length, 'no job handed out twice');
    assert.equal(taken.length, 40, `every job handed out (${conflicts} conflicts)`);
    const { items } = await a.gantry.coordinator.context.stores.jobs.list({ pipelineId }, { offset: 0, limit: 100 });
    assert.deepEqual(new Set(items.map((job) => job.status)), new Set(['running']));
  });

  it("shows an administrator's settings change made through A on B within seconds", async () => {
    const before = (await b.gantry.api('GET', '/application/settings')).json.max_artifacts_size;
    assert.notEqual(before, 321);
    const changed = await a.gantry.api('PUT', '/application/settings', { body: { max_artifacts_size: 321 } });
    assert.equal(changed.status, 200);
    const started = Date.now();
    let seen: unknown;
    while (Date.now() - started < 15_000) {
      seen = (await b.gantry.api('GET', '/application/settings')).json.max_artifacts_size;
      if (seen === 321) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.equal(seen, 321, 'coordinator B kept an old copy of the settings');
  });
});
