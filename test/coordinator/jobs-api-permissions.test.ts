import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { moveJob } from '../helpers/ci-pipelines.ts';
import { startJobsFixture, type JobsFixture } from './jobs-fixtures.ts';

describe('jobs API permissions', () => {
  let fixture: JobsFixture;

  before(async () => {
    fixture = await startJobsFixture();
  });
  after(() => fixture.close());

  const api = (...args: Parameters<JobsFixture['gantry']['api']>) => fixture.gantry.api(...args);

  it('reporters read; guests and reporters may not cancel, retry or play; developers may', async () => {
    const project = await fixture.ciProject('perm-roles', { visibility: 'private' });
    const { jobs } = await fixture.pipeline(project, [{ name: 'a', stage: 'build' }, { name: 'm', stage: 'build', when: 'manual' }]);
    assert.equal((await api('GET', `/projects/${project.id}/jobs`, { token: fixture.reporter.token })).status, 200);
    await fixture.trace(jobs.a!, 'log\n');
    assert.equal((await api('GET', `/projects/${project.id}/jobs/${jobs.a!.id}/trace`, { token: fixture.reporter.token })).status, 200);
    for (const token of [fixture.guest.token, fixture.reporter.token]) {
      for (const [action, job] of [['cancel', jobs.a!], ['play', jobs.m!], ['retry', jobs.a!]] as const) {
        const answer = await api('POST', `/projects/${project.id}/jobs/${job.id}/${action}`, { token });
        assert.equal(answer.status, 403, `${action} as ${token === fixture.guest.token ? 'guest' : 'reporter'}`);
        assert.deepEqual(answer.json, { message: '403 Forbidden' });
      }
    }
    assert.equal((await api('GET', `/projects/${project.id}/jobs/${jobs.a!.id}`)).json.status, 'pending', 'refusals changed nothing');
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${jobs.m!.id}/play`, { token: fixture.developer.token })).status, 200);
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${jobs.a!.id}/cancel`, { token: fixture.developer.token })).status, 201);
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${jobs.a!.id}/retry`, { token: fixture.developer.token })).status, 201);
  });

  it('a private project answers 404 to non-members, and anonymous callers 404 where they may read jobs at all (401 elsewhere)', async () => {
    const project = await fixture.ciProject('perm-private', { visibility: 'private' });
    const { jobs } = await fixture.pipeline(project, [{ name: 'a', stage: 'build' }]);
    const paths = ['/jobs', `/jobs/${jobs.a!.id}`, `/jobs/${jobs.a!.id}/trace`, `/jobs/${jobs.a!.id}/artifacts`];
    for (const path of paths) {
      const answer = await api('GET', `/projects/${project.id}${path}`, { token: fixture.stranger.token });
      assert.deepEqual([answer.status, answer.json], [404, { message: '404 Project Not Found' }], path);
    }
    // The Jobs API authenticates first (GitLab's `before { authenticate! }`); artifacts downloads do not.
    for (const [path, answer] of [[paths[0]!, 401], [paths[1]!, 401], [paths[2]!, 401], [paths[3]!, 404]] as const) {
      assert.equal((await api('GET', `/projects/${project.id}${path}`, { token: null })).status, answer, path);
    }
  });

  it('public_jobs false hides jobs and traces of a public project from non-members; its reporters still read them', async () => {
    const project = await fixture.ciProject('perm-public');
    const { jobs } = await fixture.pipeline(project, [{ name: 'a', stage: 'build' }]);
    await fixture.trace(jobs.a!, 'public log\n');
    assert.equal((await api('GET', `/projects/${project.id}/jobs`, { token: fixture.stranger.token })).status, 200, 'public jobs by default');
    assert.equal((await fixture.raw(`/projects/${project.id}/jobs/${jobs.a!.id}/trace`, fixture.stranger.token)).bytes.toString(), 'public log\n');
    const paths = ['/jobs', `/jobs/${jobs.a!.id}`, `/jobs/${jobs.a!.id}/trace`, `/repository/commits/${project.head}/statuses`];
    // GitLab's Jobs and commit statuses APIs authenticate every caller, public projects' too.
    for (const path of paths) assert.equal((await api('GET', `/projects/${project.id}${path}`, { token: null })).status, 401, path);

    assert.equal((await api('PUT', `/projects/${project.id}`, { body: { public_jobs: false } })).status, 200);
    for (const [token, status] of [[fixture.stranger.token, 403], [null, 401]] as const) {
      for (const path of paths) assert.equal((await api('GET', `/projects/${project.id}${path}`, { token })).status, status, path);
    }
    const commit = await api('GET', `/projects/${project.id}/repository/commits/${project.head}`, { token: fixture.stranger.token });
    assert.equal(commit.status, 200);
    assert.equal(commit.json.last_pipeline, null, 'the pipeline is hidden with the jobs');
    assert.equal((await api('GET', `/projects/${project.id}/jobs/${jobs.a!.id}/trace`, { token: fixture.reporter.token })).status, 200);
    assert.notEqual((await api('GET', `/projects/${project.id}/repository/commits/${project.head}`, { token: fixture.reporter.token })).json.last_pipeline, null);
  });

  it('protected refs: developers may not act on jobs of a branch only maintainers push to; maintainers may', async () => {
    const project = await fixture.ciProject('perm-protected');
    const protect = await api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'main', push_access_level: 40, merge_access_level: 40 } });
    assert.equal(protect.status, 201);
    const { jobs } = await fixture.pipeline(project, [{ name: 'a', stage: 'build' }, { name: 'b', stage: 'build' }]);
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${jobs.a!.id}/cancel`, { token: fixture.developer.token })).status, 403);
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${jobs.a!.id}/cancel`, { token: fixture.maintainer.token })).status, 201);

    // Developers who may merge there are allowed again.
    await api('DELETE', `/projects/${project.id}/protected_branches/main`);
    await api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'main', push_access_level: 40, merge_access_level: 30 } });
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${jobs.b!.id}/cancel`, { token: fixture.developer.token })).status, 201);
  });

  it("erase: maintainers, or the developer who triggered the job on an unprotected ref; not other developers", async () => {
    const project = await fixture.ciProject('perm-erase');
    const finished = async (name: string, userId: number) => {
      const { jobs } = await fixture.pipeline(project, [{ name, stage: 'build' }], { userId });
      await moveJob(fixture.gantry.coordinator, jobs[name]!, 'running');
      await moveJob(fixture.gantry.coordinator, jobs[name]!, 'success');
      await fixture.trace(jobs[name]!, 'log\n');
      return jobs[name]!;
    };
    const others = await finished('others', fixture.maintainer.id);
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${others.id}/erase`, { token: fixture.developer.token })).status, 403);
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${others.id}/erase`, { token: fixture.reporter.token })).status, 403);
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${others.id}/erase`, { token: fixture.maintainer.token })).status, 201);
    const own = await finished('own', fixture.developer.id);
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${own.id}/erase`, { token: fixture.developer.token })).status, 201);

    const ownProtected = await finished('own-protected', fixture.developer.id);
    await api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'main', push_access_level: 30, merge_access_level: 30 } });
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${ownProtected.id}/erase`, { token: fixture.developer.token })).status, 403);
  });

  it('keep needs the right to update the job', async () => {
    const project = await fixture.ciProject('perm-keep');
    const { jobs } = await fixture.pipeline(project, [{ name: 'a', stage: 'build' }]);
    await fixture.artifacts(jobs.a!, { 'x.txt': 'x' }, { expireAt: new Date(Date.now() + 60_000).toISOString() });
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${jobs.a!.id}/artifacts/keep`, { token: fixture.reporter.token })).status, 403);
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${jobs.a!.id}/artifacts/keep`, { token: fixture.developer.token })).status, 200);
  });
});
