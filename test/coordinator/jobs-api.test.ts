import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { moveJob } from '../helpers/ci-pipelines.ts';
import { startJobsFixture, type JobsFixture } from './jobs-fixtures.ts';

type CiProject = Awaited<ReturnType<JobsFixture['ciProject']>>;

describe('jobs API: list, show and the job actions of the state table', () => {
  let fixture: JobsFixture;
  let project: CiProject;

  before(async () => {
    fixture = await startJobsFixture();
    project = await fixture.ciProject('jobs-app');
  });
  after(() => fixture.close());

  const api = (...args: Parameters<JobsFixture['gantry']['api']>) => fixture.gantry.api(...args);

  it('lists builds newest first with the scope as a string or an array; 400 for an unknown scope', async () => {
    const { jobs } = await fixture.pipeline(project, [
      { name: 'build', stage: 'build' },
      { name: 'lint', stage: 'build' },
      { name: 'deploy', stage: 'build', when: 'manual' },
      { name: 'ext', stage: 'build', type: 'generic' },
    ]);
    await moveJob(fixture.gantry.coordinator, jobs.lint!, 'running');
    await moveJob(fixture.gantry.coordinator, jobs.lint!, 'failed', 'script_failure');

    const all = await api('GET', `/projects/${project.id}/jobs`);
    assert.equal(all.status, 200);
    const ids = all.list.map((job) => job.id as number);
    assert.deepEqual(ids, [...ids].sort((a, b) => b - a), 'newest first');
    assert.ok(!all.list.some((job) => job.name === 'ext'), 'external statuses are not jobs');
    assert.equal(all.headers['x-total'], String(all.list.length));

    const pending = await api('GET', `/projects/${project.id}/jobs?scope=pending`);
    assert.deepEqual(pending.list.map((job) => job.name), ['build']);
    const several = await api('GET', `/projects/${project.id}/jobs?scope[]=failed&scope[]=manual`);
    assert.deepEqual(several.list.map((job) => [job.name, job.status]).sort(), [['deploy', 'manual'], ['lint', 'failed']]);

    const bad = await api('GET', `/projects/${project.id}/jobs?scope=nonsense`);
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.json, { error: 'scope does not have a valid value' });
  });

  it('shows a job with GitLab fields: pipeline, commit from the repository, user, web_url, artifacts, runner', async () => {
    const { pipeline, jobs } = await fixture.pipeline(project, [{ name: 'compile', stage: 'build', tags: ['docker'] }], { userId: fixture.developer.id });
    const shown = await api('GET', `/projects/${project.id}/jobs/${jobs.compile!.id}`);
    assert.equal(shown.status, 200);
    const job = shown.json;
    assert.equal(job.name, 'compile');
    assert.equal(job.status, 'pending');
    assert.equal(job.stage, 'build');
    assert.equal(job.ref, 'main');
    assert.equal(job.tag, false);
    assert.equal(job.allow_failure, false);
    assert.equal(job.coverage, null);
    assert.equal(job.started_at, null);
    assert.equal(job.erased_at, null);
    assert.equal(job.duration, null);
    assert.equal(typeof job.queued_duration, 'number');
    assert.equal(job.web_url, `http://gantry.test/${project.full_path}/-/jobs/${jobs.compile!.id}`);
    assert.deepEqual(job.tag_list, ['docker']);
    assert.deepEqual(job.artifacts, []);
    assert.equal(job.artifacts_file, null);
    assert.equal(job.artifacts_expire_at, null);
    assert.equal(job.runner, null);
    assert.ok(!('failure_reason' in job), 'failure_reason only on failed jobs');
    assert.deepEqual(job.project, { ci_job_token_scope_enabled: false });
    const embedded = job.pipeline as Record<string, unknown>;
    assert.deepEqual(
      { id: embedded.id, iid: embedded.iid, project_id: embedded.project_id, sha: embedded.sha, ref: embedded.ref, status: embedded.status, source: embedded.source },
      { id: pipeline.id, iid: pipeline.iid, project_id: project.id, sha: project.head, ref: 'main', status: 'pending', source: 'push' },
    );
    assert.equal(embedded.web_url, `http://gantry.test/${project.full_path}/-/pipelines/${pipeline.id}`);
    const commit = job.commit as Record<string, unknown>;
    assert.equal(commit.id, project.head);
    assert.equal(typeof commit.title, 'string');
    assert.equal((job.user as Record<string, unknown>).username, fixture.developer.username);
  });

  it('answers 404 for unknown jobs, jobs of other projects and external statuses; 400 for a non-numeric id', async () => {
    const other = await fixture.ciProject('jobs-other');
    const { jobs } = await fixture.pipeline(other, [{ name: 'elsewhere', stage: 'test' }, { name: 'ext', stage: 'test', type: 'generic' }]);
    for (const path of [`/projects/${project.id}/jobs/999999`, `/projects/${project.id}/jobs/${jobs.elsewhere!.id}`, `/projects/${other.id}/jobs/${jobs.ext!.id}`]) {
      const answer = await api('GET', path);
      assert.equal(answer.status, 404, path);
      assert.deepEqual(answer.json, { message: '404 Job Not Found' });
    }
    for (const action of ['cancel', 'retry', 'play', 'erase', 'artifacts/keep']) {
      assert.equal((await api('POST', `/projects/${project.id}/jobs/999999/${action}`)).status, 404, action);
    }
    const invalid = await api('GET', `/projects/${project.id}/jobs/abc`);
    assert.equal(invalid.status, 400);
    assert.deepEqual(invalid.json, { error: 'job_id is invalid' });
    assert.equal((await api('GET', '/projects/999999/jobs')).status, 404);
  });

  it('cancel: a pending job becomes canceled (201); a finished one is left as it is', async () => {
    const { jobs } = await fixture.pipeline(project, [{ name: 'a', stage: 'test' }, { name: 'b', stage: 'test' }]);
    const canceled = await api('POST', `/projects/${project.id}/jobs/${jobs.a!.id}/cancel`);
    assert.equal(canceled.status, 201);
    assert.equal(canceled.json.status, 'canceled');
    assert.ok(canceled.json.finished_at);

    await moveJob(fixture.gantry.coordinator, jobs.b!, 'running');
    await moveJob(fixture.gantry.coordinator, jobs.b!, 'success');
    const finished = await api('POST', `/projects/${project.id}/jobs/${jobs.b!.id}/cancel`);
    assert.equal(finished.status, 201);
    assert.equal(finished.json.status, 'success');
  });

  it('retry: a finished job gets a new pending job (201, finished_at null); a pending one is 403 "Job is not retryable"', async () => {
    const { jobs } = await fixture.pipeline(project, [{ name: 'flaky', stage: 'test' }]);
    const notYet = await api('POST', `/projects/${project.id}/jobs/${jobs.flaky!.id}/retry`);
    assert.equal(notYet.status, 403);
    assert.deepEqual(notYet.json, { message: '403 Forbidden - Job is not retryable' });

    await moveJob(fixture.gantry.coordinator, jobs.flaky!, 'running');
    await moveJob(fixture.gantry.coordinator, jobs.flaky!, 'failed', 'script_failure');
    const failed = await api('GET', `/projects/${project.id}/jobs/${jobs.flaky!.id}`);
    assert.equal(failed.json.failure_reason, 'script_failure');
    const retried = await api('POST', `/projects/${project.id}/jobs/${jobs.flaky!.id}/retry`, { token: fixture.developer.token });
    assert.equal(retried.status, 201);
    assert.notEqual(retried.json.id, jobs.flaky!.id);
    assert.equal(retried.json.name, 'flaky');
    assert.equal(retried.json.status, 'pending');
    assert.equal(retried.json.finished_at, null);
    assert.equal((retried.json.user as Record<string, unknown>).username, fixture.developer.username);
  });

  it('play: a manual job is enqueued (200); a job that is no action is 400 "Unplayable Job"; a finished action is run again', async () => {
    const { jobs } = await fixture.pipeline(project, [{ name: 'build', stage: 'build' }, { name: 'ship', stage: 'build', when: 'manual' }]);
    const unplayable = await api('POST', `/projects/${project.id}/jobs/${jobs.build!.id}/play`);
    assert.equal(unplayable.status, 400);
    assert.deepEqual(unplayable.json, { message: '400 Bad request - Unplayable Job' });

    const played = await api('POST', `/projects/${project.id}/jobs/${jobs.ship!.id}/play`);
    assert.equal(played.status, 200);
    assert.equal(played.json.id, jobs.ship!.id);
    assert.equal(played.json.status, 'pending');

    await moveJob(fixture.gantry.coordinator, jobs.ship!, 'running');
    await moveJob(fixture.gantry.coordinator, jobs.ship!, 'success');
    const again = await api('POST', `/projects/${project.id}/jobs/${jobs.ship!.id}/play`);
    assert.equal(again.status, 200);
    assert.notEqual(again.json.id, jobs.ship!.id);
    assert.equal(again.json.status, 'pending');
  });

  it('a delayed (scheduled) job can be played at once', async () => {
    const { jobs } = await fixture.pipeline(project, [{ name: 'later', stage: 'deploy', when: 'delayed', startInSeconds: 3600 }]);
    assert.equal((await api('GET', `/projects/${project.id}/jobs/${jobs.later!.id}`)).json.status, 'scheduled');
    const played = await api('POST', `/projects/${project.id}/jobs/${jobs.later!.id}/play`);
    assert.equal(played.status, 200);
    assert.equal(played.json.status, 'pending');
  });
});
