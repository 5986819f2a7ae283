import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { moveJob, type SeededPipeline } from '../helpers/ci-pipelines.ts';
import { startPipelinesFixture, type PipelinesFixture } from './pipelines-fixtures.ts';

type Project = ProjectRecord & { headSha: string };

/** A pipeline's jobs, bridges and variables, and who sees them (reporters; public_jobs for the others). */
describe('pipelines API: jobs, bridges, variables', () => {
  let fixture: PipelinesFixture;
  let project: Project;
  let seeded: SeededPipeline;
  /** Ids of: build (success), test (failed, retried once → its clone pending), deploy (manual). */
  const ids: Record<string, number> = {};

  const get = (path: string, token?: string | null) => fixture.gantry.api('GET', path, token === undefined ? {} : { token });
  const jobsOf = (target: Project, pipelineId: number, query = '', token?: string | null) => get(`/projects/${target.id}/pipelines/${pipelineId}/jobs${query}`, token);

  before(async () => {
    fixture = await startPipelinesFixture();
    project = await fixture.project('jobs');
    const { coordinator } = fixture.gantry;
    seeded = await fixture.seed(project, {
      userId: fixture.developer.id,
      jobs: [
        { name: 'build', stage: 'build', tags: ['linux', 'docker'] },
        { name: 'test', stage: 'test', allowFailure: true },
        { name: 'deploy', stage: 'deploy', when: 'manual', allowFailure: true },
      ],
    });
    await moveJob(coordinator, seeded.jobs.build, 'running');
    await moveJob(coordinator, seeded.jobs.build, 'success');
    await moveJob(coordinator, seeded.jobs.test, 'running');
    await moveJob(coordinator, seeded.jobs.test, 'failed', 'script_failure');
    const retried = await fixture.gantry.api('POST', `/projects/${project.id}/pipelines/${seeded.pipeline.id}/retry`);
    assert.equal(retried.status, 201);
    const all = (await coordinator.context.stores.jobs.list({ pipelineId: seeded.pipeline.id, includeRetried: true }, { offset: 0, limit: 50 })).items;
    ids.build = seeded.jobs.build.id;
    ids.test = seeded.jobs.test.id;
    ids.deploy = seeded.jobs.deploy.id;
    ids.testClone = all.find((job) => job.name === 'test' && !job.retried)!.id;
  });
  after(() => fixture.close());

  it('lists the latest builds, newest first, with pagination headers', async () => {
    const answer = await jobsOf(project, seeded.pipeline.id);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.list.map((job) => job.id), [ids.testClone, ids.deploy, ids.build]);
    assert.equal(answer.headers['x-total'], '3');
    assert.equal(answer.headers['x-page'], '1');
    const withRetried = await jobsOf(project, seeded.pipeline.id, '?include_retried=true');
    assert.deepEqual(withRetried.list.map((job) => job.id), [ids.testClone, ids.deploy, ids.test, ids.build]);
  });

  it('filters by scope given as a string or an array', async () => {
    const names = async (query: string) => (await jobsOf(project, seeded.pipeline.id, query)).list.map((job) => `${job.name}:${job.status}`);
    assert.deepEqual(await names('?scope=success'), ['build:success']);
    assert.deepEqual(await names('?scope[]=manual&scope[]=pending'), ['test:pending', 'deploy:manual']);
    assert.deepEqual(await names('?scope[]=failed&include_retried=true'), ['test:failed']);
    assert.deepEqual(await names('?scope=failed'), [], 'the retried job is not among the latest');
    assert.deepEqual(await names('?scope=preparing'), [], 'a GitLab status Gantry never stores');
    for (const query of ['?scope=bogus', '?scope[]=success&scope[]=bogus']) {
      const answer = await jobsOf(project, seeded.pipeline.id, query);
      assert.equal(answer.status, 400, query);
      assert.deepEqual(answer.json, { error: 'scope does not have a valid value' });
    }
    const badFlag = await jobsOf(project, seeded.pipeline.id, '?include_retried=sometimes');
    assert.deepEqual([badFlag.status, badFlag.json], [400, { error: 'include_retried is invalid' }]);
  });

  it("serialises each job with GitLab's job fields", async () => {
    const { stores } = fixture.gantry.coordinator.context;
    const runner = await stores.runners.create({ runner_type: 'instance_type', description: 'shared box', contacted_at: new Date().toISOString(), created_at: new Date().toISOString() }, 'runner-token-jobs-test');
    await stores.jobs.update(ids.build, { runner_id: runner.id, coverage: 81.5, artifacts_expire_at: '2030-01-01T00:00:00.000Z' });
    await stores.jobArtifacts.save({
      job_id: ids.build, project_id: project.id, file_type: 'archive', file_format: 'zip', file_name: 'artifacts.zip', size: 321, sha256: 'a'.repeat(64),
      path: `artifacts/${project.id}/${ids.build}/artifacts.zip`, expire_at: null, created_at: new Date().toISOString(),
    });
    const list = (await jobsOf(project, seeded.pipeline.id, '?include_retried=true')).list;
    const build = list.find((job) => job.id === ids.build)!;
    const build0 = (await stores.jobs.findById(ids.build))!;
    const pipeline = (await stores.pipelines.findById(seeded.pipeline.id))!;
    assert.deepEqual(Object.keys(build).sort(), [
      'allow_failure', 'archived', 'artifacts', 'artifacts_expire_at', 'artifacts_file', 'commit', 'coverage', 'created_at', 'duration', 'erased_at', 'finished_at',
      'id', 'name', 'pipeline', 'project', 'queued_duration', 'ref', 'runner', 'stage', 'started_at', 'status', 'tag', 'tag_list', 'user', 'web_url',
    ]);
    assert.equal(build.status, 'success');
    assert.equal(build.stage, 'build');
    assert.equal(build.ref, 'main');
    assert.equal(build.tag, false);
    assert.equal(build.coverage, 81.5);
    assert.equal(build.allow_failure, false);
    assert.deepEqual(build.tag_list, ['docker', 'linux']);
    assert.equal(build.web_url, `http://gantry.test/ci1/jobs/-/jobs/${ids.build}`);
    assert.equal(build.artifacts_expire_at, '2030-01-01T00:00:00.000Z');
    assert.deepEqual(build.artifacts_file, { filename: 'artifacts.zip', size: 321 });
    assert.deepEqual(build.artifacts, [{ file_type: 'archive', size: 321, filename: 'artifacts.zip', file_format: 'zip' }]);
    assert.deepEqual(build.runner, {
      id: runner.id, description: 'shared box', ip_address: null, active: true, paused: false, is_shared: true, runner_type: 'instance_type', name: null, online: true, status: 'online',
    });
    assert.equal(typeof build.duration, 'number');
    assert.equal(build.duration, (Date.parse(build0.finished_at!) - Date.parse(build0.started_at!)) / 1000);
    assert.equal(typeof build.queued_duration, 'number');
    assert.deepEqual(build.pipeline, {
      id: pipeline.id, iid: pipeline.iid, project_id: project.id, sha: project.headSha, ref: 'main', status: pipeline.status, source: 'push',
      created_at: pipeline.created_at, updated_at: pipeline.updated_at, web_url: `http://gantry.test/ci1/jobs/-/pipelines/${pipeline.id}`,
    });
    const commit = build.commit as Record<string, unknown>;
    assert.equal(commit.id, project.headSha);
    assert.equal(commit.short_id, project.headSha.slice(0, 8));
    assert.equal(typeof commit.title, 'string');
    const user = build.user as Record<string, unknown>;
    assert.equal(user.username, fixture.developer.username);
    assert.ok('created_at' in user && 'bio' in user, 'the public user entity');

    const failed = list.find((job) => job.id === ids.test)!;
    assert.equal(failed.failure_reason, 'script_failure', 'failed jobs carry failure_reason');
    assert.equal(failed.allow_failure, true);
    assert.equal(failed.runner, null);
    assert.deepEqual(failed.artifacts, []);
    assert.equal(failed.artifacts_file, null, 'no archive: null, as the jobs API shows it');
    const manual = list.find((job) => job.id === ids.deploy)!;
    assert.ok(!('failure_reason' in manual), 'only failed jobs carry failure_reason');
    assert.equal(manual.started_at, null);
    assert.equal(manual.duration, null);
    assert.equal(manual.queued_duration, null);
  });

  it('lists bridge jobs with their downstream pipelines', async () => {
    const { stores } = fixture.gantry.coordinator.context;
    const downstreamProject = await fixture.project('downstream');
    const parent = await fixture.seed(project, { jobs: [{ name: 'unit', stage: 'test' }, { name: 'trigger-child', stage: 'test', type: 'bridge' }, { name: 'trigger-other', stage: 'test', type: 'bridge' }] });
    const child = await stores.pipelines.create({
      project_id: downstreamProject.id, ref: 'main', sha: downstreamProject.headSha, source: 'pipeline', status: 'pending', created_at: new Date().toISOString(),
      source_job_id: parent.jobs['trigger-child'].id,
    });
    const answer = await get(`/projects/${project.id}/pipelines/${parent.pipeline.id}/bridges`);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['x-total'], '2');
    assert.deepEqual(answer.list.map((bridge) => bridge.name), ['trigger-other', 'trigger-child'], 'bridges only, newest first');
    const [other, withChild] = answer.list;
    assert.equal(other.downstream_pipeline, null);
    assert.deepEqual(withChild.downstream_pipeline, {
      id: child.id, iid: child.iid, project_id: downstreamProject.id, sha: downstreamProject.headSha, ref: 'main', status: 'pending', source: 'pipeline',
      created_at: child.created_at, updated_at: child.updated_at, web_url: `http://gantry.test/ci1/downstream/-/pipelines/${child.id}`,
    });
    assert.ok(!('runner' in withChild) && !('artifacts' in withChild), 'the bridge entity is JobBasic plus downstream_pipeline');
    assert.deepEqual((await get(`/projects/${project.id}/pipelines/${parent.pipeline.id}/bridges?scope=running`)).list, []);
    const bad = await get(`/projects/${project.id}/pipelines/${parent.pipeline.id}/bridges?scope=nope`);
    assert.deepEqual([bad.status, bad.json], [400, { error: 'scope does not have a valid value' }]);
  });

  it("shows the pipeline's variables to maintainers and to the developer who ran it", async () => {
    const { stores } = fixture.gantry.coordinator.context;
    await stores.pipelineVariables.add(seeded.pipeline.id, [
      { key: 'DEPLOY_TARGET', value: 'staging', variable_type: 'env_var' },
      { key: 'CONFIG', value: 'a=b', variable_type: 'file' },
    ]);
    const url = `/projects/${project.id}/pipelines/${seeded.pipeline.id}/variables`;
    for (const token of [fixture.maintainer.token, fixture.owner.token, fixture.developer.token, fixture.gantry.rootToken]) {
      const answer = await get(url, token);
      assert.equal(answer.status, 200);
      assert.deepEqual(
        [...answer.list].sort((a, b) => String(a.key).localeCompare(String(b.key))),
        [{ key: 'CONFIG', value: 'a=b', variable_type: 'file' }, { key: 'DEPLOY_TARGET', value: 'staging', variable_type: 'env_var' }],
      );
      assert.equal(answer.headers['x-total'], '2');
    }
    const otherDeveloper = await fixture.seed(project, { userId: fixture.maintainer.id, jobs: [{ name: 'x', stage: 'build' }] });
    const refused = await get(`/projects/${project.id}/pipelines/${otherDeveloper.pipeline.id}/variables`, fixture.developer.token);
    assert.deepEqual([refused.status, refused.json], [403, { message: '403 Forbidden' }]);
    for (const user of [fixture.reporter, fixture.guest, fixture.stranger]) assert.equal((await get(url, user.token)).status, 403, user.username);
    assert.equal((await get(url, null)).status, 403);
  });

  describe('who sees pipelines and their jobs', () => {
    it('public project: everyone reads pipelines and jobs, anonymous callers too', async () => {
      for (const token of [fixture.stranger.token, fixture.guest.token, null]) {
        assert.equal((await get(`/projects/${project.id}/pipelines`, token)).status, 200);
        assert.equal((await get(`/projects/${project.id}/pipelines/${seeded.pipeline.id}`, token)).status, 200);
        assert.equal((await jobsOf(project, seeded.pipeline.id, '', token)).list.length, 3);
      }
    });

    it('public project without public jobs: non-members and guests see the pipeline but no jobs; reporters see all', async () => {
      const closed = await fixture.project('closed-jobs', { publicJobs: false });
      const { pipeline } = await fixture.seed(closed, { jobs: [{ name: 'build', stage: 'build' }, { name: 'bridge', stage: 'build', type: 'bridge' }] });
      for (const token of [fixture.stranger.token, fixture.guest.token, null]) {
        assert.equal((await get(`/projects/${closed.id}/pipelines/${pipeline.id}`, token)).status, 200, 'the pipeline itself is public');
        const jobs = await jobsOf(closed, pipeline.id, '', token);
        assert.equal(jobs.status, 200);
        assert.deepEqual(jobs.list, [], "GitLab's JobsFinder answers none without read_build");
        const list = await get(`/projects/${closed.id}/pipelines`, token);
        assert.deepEqual([list.status, list.json], [403, { message: '403 Forbidden' }], 'listing needs read_build');
        assert.equal((await get(`/projects/${closed.id}/pipelines/${pipeline.id}/bridges`, token)).status, 403);
      }
      assert.equal((await jobsOf(closed, pipeline.id, '', fixture.reporter.token)).list.length, 1);
      assert.equal((await get(`/projects/${closed.id}/pipelines`, fixture.reporter.token)).list.length, 1);
      assert.equal((await get(`/projects/${closed.id}/pipelines/${pipeline.id}/bridges`, fixture.reporter.token)).list.length, 1);
    });

    it('private project: 404 for non-members; guests need public jobs; reporters read', async () => {
      const hidden = await fixture.project('hidden-jobs', { visibility: 'private' });
      const { pipeline } = await fixture.seed(hidden, { jobs: [{ name: 'build', stage: 'build' }] });
      for (const token of [fixture.stranger.token, null]) {
        for (const path of ['', `/${pipeline.id}`, `/${pipeline.id}/jobs`, `/${pipeline.id}/variables`, `/${pipeline.id}/bridges`]) {
          const answer = await get(`/projects/${hidden.id}/pipelines${path}`, token);
          assert.deepEqual([answer.status, answer.json], [404, { message: '404 Project Not Found' }], path);
        }
      }
      // A guest of a private project with public jobs (the default) reads pipelines and jobs.
      assert.equal((await get(`/projects/${hidden.id}/pipelines/${pipeline.id}`, fixture.guest.token)).status, 200);
      assert.equal((await jobsOf(hidden, pipeline.id, '', fixture.guest.token)).list.length, 1);
      await fixture.gantry.coordinator.context.stores.projects.update(hidden.id, { public_jobs: false });
      for (const path of ['', `/${pipeline.id}`, `/${pipeline.id}/jobs`]) {
        const answer = await get(`/projects/${hidden.id}/pipelines${path}`, fixture.guest.token);
        assert.deepEqual([answer.status, answer.json], [403, { message: '403 Forbidden' }], `guest ${path}`);
      }
      const missing = await get(`/projects/${hidden.id}/pipelines/999999`, fixture.guest.token);
      assert.equal(missing.status, 404, 'an unknown pipeline is 404 before the read check');
      assert.equal((await get(`/projects/${hidden.id}/pipelines/${pipeline.id}`, fixture.reporter.token)).status, 200);
      assert.equal((await jobsOf(hidden, pipeline.id, '', fixture.reporter.token)).list.length, 1);
    });

    it('a project with CI disabled shows no jobs, even to its members', async () => {
      const disabled = await fixture.project('no-ci');
      const { pipeline } = await fixture.seed(disabled, { jobs: [{ name: 'build', stage: 'build' }] });
      await fixture.gantry.coordinator.context.stores.projects.update(disabled.id, { jobs_enabled: false });
      assert.deepEqual((await jobsOf(disabled, pipeline.id, '', fixture.maintainer.token)).list, []);
      assert.equal((await get(`/projects/${disabled.id}/pipelines/${pipeline.id}`, fixture.maintainer.token)).status, 200);
      assert.equal((await fixture.gantry.api('POST', `/projects/${disabled.id}/pipelines/${pipeline.id}/cancel`, { token: fixture.maintainer.token })).status, 403);
    });
  });
});
