import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/shared/logger.ts';
import { startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/** A job the coordinator fails (the trace size limit) still gets the coverage of the log it kept, as in GitLab. */
describe('coverage of a job failed by the trace size limit', () => {
  let fixture: RunnerJobsFixture;
  before(async () => {
    fixture = await startRunnerJobsFixture({ extra: { logger: silentLogger(), ci: { runTasks: false, runnerJobs: { traces: { maxBytes: 200 } } } } });
  });
  after(() => fixture.close());

  it('scans the stored log before failing the job, and the pipeline averages it', async () => {
    const project = await fixture.ciProject('coverage-limit', "test:\n  script: make\n  coverage: '/Coverage: \\d+\\.\\d+%/'\n");
    const runner = await fixture.register(project.runners_token);
    const pipelineId = await fixture.runPipeline(project.id);
    const claimed = await fixture.requestJob(runner.token);
    assert.equal(claimed.status, 201, claimed.text);
    const jobId = Number(claimed.json.id);
    const patch = (start: number, body: string) =>
      fetch(`${fixture.baseUrl}/api/v4/jobs/${String(jobId)}/trace`, {
        method: 'PATCH',
        headers: { 'content-type': 'text/plain', 'job-token': String(claimed.json.token), 'content-range': `${String(start)}-${String(start + body.length - 1)}` },
        body,
      });
    const kept = '$ make\nCoverage: 12.50%\n';
    assert.equal((await patch(0, kept)).status, 202);
    const over = await patch(kept.length, 'x'.repeat(300));
    assert.deepEqual([over.status, over.headers.get('job-status')], [403, 'failed']);

    const job = await fixture.gantry.api('GET', `/projects/${project.id}/jobs/${String(jobId)}`);
    assert.deepEqual([job.json.status, job.json.failure_reason, job.json.coverage], ['failed', 'trace_size_exceeded', 12.5]);
    const pipeline = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${String(pipelineId)}`);
    assert.equal(pipeline.json.coverage, '12.50');
  });
});
