import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startRunnerJobsFixture, type RunnerJobsFixture, type RunnerResponse } from './runner-job-fixtures.ts';

/**
 * Long polling built into `POST /jobs/request` (reference §3.3): a runner echoing the current
 * X-GitLab-Last-Update is held until a job becomes pending (default 50 s), a stale one is
 * answered at once, and closing the coordinator ends the held requests with 204.
 */
const CI = 'job:\n  script: [make]\n';

/** Whether `promise` is still unsettled after `ms`. */
async function stillPending(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const marker = Symbol('pending');
  const winner = await Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(marker), ms))]);
  return winner === marker;
}

describe('POST /jobs/request: long polling (default 50 s)', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(() => fixture.close());

  /** The runner's second request: it carries the value of the first 204. */
  async function currentValue(token: string): Promise<string> {
    const first = await fixture.requestJob(token);
    assert.equal(first.status, 204);
    return first.headers.get('x-gitlab-last-update') ?? '';
  }

  it('holds a current runner and answers 201 as soon as a job becomes pending', async () => {
    const project = await fixture.ciProject('woken', CI);
    const runner = await fixture.register(project.runners_token);
    const value = await currentValue(runner.token);
    const held = fixture.requestJob(runner.token, value);
    assert.equal(await stillPending(held, 500), true, 'nothing queued: the request is held');
    const queuedAt = Date.now();
    const pipelineId = await fixture.runPipeline(project.id);
    const answer = await held;
    const latency = Date.now() - queuedAt;
    assert.equal(answer.status, 201, answer.text);
    assert.ok(latency < 25_000, `answered ${latency} ms after the job was queued, far below the 50 s poll`);
    const pipeline = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${pipelineId}`);
    assert.equal(pipeline.json.status, 'running');
  });

  it('wakes a held runner that cannot take the new job only to hold it again', async () => {
    const project = await fixture.ciProject('unmatched', 'job:\n  tags: [gpu]\n  script: [make]\n');
    const runner = await fixture.register(project.runners_token, { tag_list: 'cpu', run_untagged: false });
    const gpu = await fixture.register(project.runners_token, { tag_list: 'gpu', run_untagged: false });
    const value = await currentValue(runner.token);
    const held = fixture.requestJob(runner.token, value);
    await fixture.runPipeline(project.id);
    assert.equal(await stillPending(held, 1_000), true, 'still held after the wake-up');
    assert.equal((await fixture.requestJob(gpu.token)).status, 201);
    assert.equal(await stillPending(held, 200), true);
    // Closing the fixture ends it with 204 (tested below).
    void held.catch(() => {});
  });

  it('answers a stale last_update at once with the new value', async () => {
    const project = await fixture.ciProject('stale', CI);
    const runner = await fixture.register(project.runners_token);
    const started = Date.now();
    const answer = await fixture.requestJob(runner.token, 'lu-1');
    assert.equal(answer.status, 204);
    assert.ok(Date.now() - started < 25_000, 'not held for the 50 s poll');
    const value = answer.headers.get('x-gitlab-last-update');
    assert.match(value ?? '', /^lu-\d+$/);
    assert.notEqual(value, 'lu-1');
  });

  it('answers a stale runner at once with the job when one is pending', async () => {
    const project = await fixture.ciProject('stale-job', CI);
    const runner = await fixture.register(project.runners_token);
    const value = await currentValue(runner.token);
    await fixture.runPipeline(project.id);
    const answer = await fixture.requestJob(runner.token, value);
    assert.equal(answer.status, 201, 'the queue moved since the runner looked');
  });
});

describe('POST /jobs/request: poll length and closing', () => {
  it('holds a current runner for the configured time, then 204 with the same value', async () => {
    const fixture = await startRunnerJobsFixture({ extra: { jobRequestLongPollSeconds: 1 } });
    try {
      const project = await fixture.ciProject('short', CI);
      const runner = await fixture.register(project.runners_token);
      const first = await fixture.requestJob(runner.token);
      const value = first.headers.get('x-gitlab-last-update') ?? '';
      const started = Date.now();
      const second = await fixture.requestJob(runner.token, value);
      const held = Date.now() - started;
      assert.equal(second.status, 204);
      assert.equal(second.headers.get('x-gitlab-last-update'), value);
      assert.ok(held >= 900, `held ${held} ms`);
    } finally {
      await fixture.close();
    }
  });

  it('ends held requests with 204 when the coordinator closes', async () => {
    const fixture = await startRunnerJobsFixture();
    const project = await fixture.ciProject('closing', CI);
    const runner = await fixture.register(project.runners_token);
    const first = await fixture.requestJob(runner.token);
    const value = first.headers.get('x-gitlab-last-update') ?? '';
    const held: Promise<RunnerResponse>[] = [fixture.requestJob(runner.token, value), fixture.requestJob(runner.token, value)];
    assert.equal(await stillPending(Promise.race(held), 500), true);
    const started = Date.now();
    await fixture.close();
    const answers = await Promise.all(held);
    assert.deepEqual(answers.map((answer) => answer.status), [204, 204]);
    assert.ok(Date.now() - started < 25_000, 'closing did not wait for the 50 s poll');
  });
});
