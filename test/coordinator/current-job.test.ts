import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startRunnerJobsFixture, type RunnerJobsFixture } from '../helpers/runner-jobs.ts';

/** `GET /api/v4/job`: a running job reads its own record with its job token (GitLab 13.x). */
describe('GET /job with a job token', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(() => fixture.close());

  it("answers the running job's own record from the JOB-TOKEN header or job_token, and 401 for anything else", async () => {
    const project = await fixture.project('current-job');
    await fixture.pipeline(project, [{ name: 'build', stage: 'build' }]);
    const { job, token } = await fixture.claim();
    const api = fixture.gantry.api;
    const byHeader = await api('GET', '/job', { token: null, headers: { 'job-token': token } });
    assert.equal(byHeader.status, 200, byHeader.text);
    assert.deepEqual([byHeader.json.id, byHeader.json.name, byHeader.json.status, byHeader.json.ref], [job.id, 'build', 'running', 'main']);
    assert.equal((byHeader.json.pipeline as Record<string, unknown>).id, job.pipeline_id);
    const byParam = await api('GET', `/job?job_token=${encodeURIComponent(token)}`, { token: null });
    assert.equal(byParam.json.id, job.id);

    for (const [label, options] of [
      ['no token', { token: null }],
      ['a wrong token', { token: null, headers: { 'job-token': `${token}x` } }],
      ['a personal access token', {}],
    ] as const) {
      const answer = await api('GET', '/job', options);
      assert.deepEqual([answer.status, answer.json], [401, { message: '401 Unauthorized' }], label);
    }
    await fixture.gantry.coordinator.context.stores.jobs.update(job.id, { status: 'success', finished_at: new Date().toISOString() });
    assert.equal((await api('GET', '/job', { token: null, headers: { 'job-token': token } })).status, 401, 'a finished job has no authenticated job');
  });
});
