import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { addMember, makeProjectWithRepository } from './groups-fixtures.ts';
import { startRunnerJobsFixture, type RunnerJobsFixture } from '../helpers/runner-jobs.ts';

const DOWNSTREAM_CI = `
from-pipeline:
  script: echo upstream
  rules:
    - if: $CI_PIPELINE_SOURCE == "pipeline"
from-trigger:
  script: echo trigger
  rules:
    - if: $CI_PIPELINE_SOURCE == "trigger"
`;

/** `POST /projects/:id/trigger/pipeline` with `token=$CI_JOB_TOKEN`: a multi-project pipeline from a job's script (GitLab's PipelineTriggerService). */
describe('trigger/pipeline with a CI job token', () => {
  let fixture: RunnerJobsFixture;
  let upstream: ProjectRecord;

  before(async () => {
    fixture = await startRunnerJobsFixture();
    upstream = await fixture.project('jt-upstream');
  });
  after(() => fixture.close());

  async function projectWithCi(path: string, developerLevel?: 20 | 30): Promise<ProjectRecord> {
    const project = await makeProjectWithRepository(fixture.gantry, 1, path, { visibility: 'private', withReadme: true });
    if (developerLevel !== undefined) await addMember(fixture.gantry, { type: 'project', id: project.id }, fixture.developer.id, developerLevel);
    const committed = await fixture.gantry.api('POST', `/projects/${project.id}/repository/commits`, {
      body: { branch: 'main', commit_message: 'ci', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: DOWNSTREAM_CI }] },
    });
    assert.equal(committed.status, 201, committed.text);
    const branched = await fixture.gantry.api('POST', `/projects/${project.id}/repository/branches?branch=develop&ref=main`);
    assert.equal(branched.status, 201, branched.text);
    return project;
  }

  async function runningJob(): Promise<{ jobId: number; pipelineId: number; token: string }> {
    await fixture.pipeline(upstream, [{ name: 'trigger-downstream', stage: 'deploy' }]);
    const { job, token } = await fixture.claim();
    return { jobId: job.id, pipelineId: job.pipeline_id, token };
  }

  const trigger = (project: ProjectRecord, token: string, extra: Record<string, string> = {}) =>
    fixture.gantry.api('POST', `/projects/${project.id}/trigger/pipeline`, { token: null, form: { token, ref: 'develop', ...extra } });

  it("creates a pipeline with source `pipeline` as the job's user where that user is a Developer, its upstream the job's pipeline", async () => {
    const target = await projectWithCi('jt-downstream', 30);
    const { jobId, pipelineId, token } = await runningJob();
    const answer = await trigger(target, token, { 'variables[FROM]': 'job' });
    assert.equal(answer.status, 201, answer.text);
    assert.equal(answer.json.source, 'pipeline');
    assert.equal((answer.json.user as Record<string, unknown>).username, fixture.developer.username);
    const { stores } = fixture.gantry.coordinator.context;
    const pipeline = await stores.pipelines.findById(answer.json.id as number);
    assert.ok(pipeline);
    assert.deepEqual([pipeline.project_id, pipeline.user_id, pipeline.trigger_id, pipeline.parent_pipeline_id, pipeline.source_job_id], [target.id, fixture.developer.id, null, pipelineId, jobId]);
    const { items } = await stores.jobs.list({ pipelineId: pipeline.id }, { offset: 0, limit: 10 });
    assert.deepEqual(items.map((job) => job.name), ['from-pipeline'], 'CI_PIPELINE_SOURCE is pipeline');
    assert.deepEqual((await stores.pipelineVariables.list(pipeline.id)).map((variable) => [variable.key, variable.value]), [['FROM', 'job']]);
    assert.ok(!answer.text.includes(token));
    // The job's user's rights on the ref: main is protected, Maintainers only.
    const protectedRef = await trigger(target, token, { ref: 'main' });
    assert.deepEqual([protectedRef.status, protectedRef.json], [400, { message: { base: ["Insufficient permissions for protected ref 'main'"] } }]);
  });

  it("answers 404 where the job's user cannot read the project, 400 where it may not create pipelines, 401 once the job stopped", async () => {
    const hidden = await projectWithCi('jt-hidden');
    const reporterOnly = await projectWithCi('jt-reporter', 20);
    const { jobId, token } = await runningJob();
    const notFound = await trigger(hidden, token);
    assert.deepEqual([notFound.status, notFound.json], [404, { message: '404 Not Found' }]);
    const refused = await trigger(reporterOnly, token);
    assert.deepEqual([refused.status, refused.json], [400, { message: { base: ['Insufficient permissions to create a new pipeline'] } }]);
    assert.equal((await fixture.gantry.coordinator.context.stores.pipelines.list({ projectId: hidden.id }, { offset: 0, limit: 10 })).items.length, 0);

    await fixture.gantry.coordinator.context.stores.jobs.update(jobId, { status: 'success', finished_at: new Date().toISOString() });
    const stopped = await trigger(reporterOnly, token);
    assert.deepEqual([stopped.status, stopped.json], [401, { message: 'Job is not running' }]);
    assert.deepEqual((await trigger(reporterOnly, `${token}x`)).status, 404, 'a token of no trigger and no job');
  });
});
