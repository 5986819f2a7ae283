/**
 * Issue 22: compiling a CI file has a compute-time deadline and a heap ceiling (the compile
 * sandbox), enforced for lint and pipeline creation alike.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startJobsFixture, type JobsFixture } from './jobs-fixtures.ts';

const CPU_MS = 250;
/** 25,000 jobs (0.7 MB): seconds to load, far past the deadline (its worker is stopped long before the job limit says no). */
const SLOW_CI = Array.from({ length: 25_000 }, (_, index) => `job-${index}:\n  script: echo ${index}\n`).join('');
const SMALL_CI = 'build:\n  script: make\n';

describe('CI compile limits', () => {
  let fixture: JobsFixture;

  before(async () => {
    fixture = await startJobsFixture({ extra: { ci: { taskPollIntervalMs: 50, compile: { workers: 1, limits: { maxCompileCpuMs: CPU_MS } } } } });
  });
  after(() => fixture?.close());

  it('lint answers a configuration error past the compute-time deadline, then lints the next file', async () => {
    const slow = await fixture.gantry.api('POST', '/ci/lint', { body: { content: SLOW_CI } });
    assert.equal(slow.status, 200, slow.text);
    assert.deepEqual(slow.json, { status: 'invalid', errors: [`Compiling the configuration exceeded the compute time limit of ${CPU_MS} ms`], warnings: [] });
    const small = await fixture.gantry.api('POST', '/ci/lint', { body: { content: SMALL_CI } });
    assert.deepEqual(small.json, { status: 'valid', errors: [], warnings: [] });
  });

  it('a pushed file past the deadline gives a failed pipeline with the error; the next push a pipeline', async () => {
    const created = await fixture.gantry.api('POST', '/projects', { body: { name: 'slow-ci' } });
    assert.equal(created.status, 201, created.text);
    const projectId = created.json.id as number;
    const push = async (content: string, action: 'create' | 'update') => {
      const answer = await fixture.gantry.api('POST', `/projects/${projectId}/repository/commits`, {
        body: { branch: 'main', commit_message: 'CI', actions: [{ action, file_path: '.gitlab-ci.yml', content }] },
      });
      assert.equal(answer.status, 201, answer.text);
    };
    const pipelines = async (count: number) => {
      for (let attempt = 0; attempt < 600; attempt++) {
        const listed = await fixture.gantry.api('GET', `/projects/${projectId}/pipelines?sort=asc`);
        if (listed.list.length >= count) return listed.list;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`fewer than ${count} pipelines after 30 s of polling`);
    };

    await push(SLOW_CI, 'create');
    const [failed] = await pipelines(1);
    const detail = await fixture.gantry.api('GET', `/projects/${projectId}/pipelines/${failed?.id}`);
    assert.equal(detail.json.status, 'failed');
    assert.equal(detail.json.yaml_errors, `Compiling the configuration exceeded the compute time limit of ${CPU_MS} ms`);

    await push(SMALL_CI, 'update');
    const [, next] = await pipelines(2);
    const jobs = await fixture.gantry.api('GET', `/projects/${projectId}/pipelines/${next?.id}/jobs`);
    assert.deepEqual(jobs.list.map((job) => job.name), ['build']);
  });
});
