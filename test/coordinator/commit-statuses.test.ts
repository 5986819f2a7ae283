import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startJobsFixture, type JobsFixture } from './jobs-fixtures.ts';

type CiProject = Awaited<ReturnType<JobsFixture['ciProject']>>;

describe('commit statuses', () => {
  let fixture: JobsFixture;

  before(async () => {
    fixture = await startJobsFixture();
  });
  after(() => fixture.close());

  const api = (...args: Parameters<JobsFixture['gantry']['api']>) => fixture.gantry.api(...args);
  const post = (project: CiProject, body: Record<string, unknown>, token?: string | null, sha = project.head) => api('POST', `/projects/${project.id}/statuses/${sha}`, { body, token });

  it('creates an external pipeline for a sha without one and moves the status through the state rules', async () => {
    const project = await fixture.ciProject('statuses-external');
    const before = await api('GET', `/projects/${project.id}/repository/commits/${project.head}`);
    assert.equal(before.json.status, null);
    assert.equal(before.json.last_pipeline, null);

    const pending = await post(project, { state: 'pending', target_url: 'https://ci.example/1', description: 'queued' }, fixture.developer.token);
    assert.equal(pending.status, 201);
    assert.equal(pending.json.status, 'pending');
    assert.equal(pending.json.name, 'default');
    assert.equal(pending.json.ref, 'main', 'the first branch holding the commit');
    assert.equal(pending.json.sha, project.head);
    assert.equal(pending.json.target_url, 'https://ci.example/1');
    assert.equal(pending.json.description, 'queued');
    assert.equal(pending.json.allow_failure, false);
    assert.equal((pending.json.author as Record<string, unknown>).username, fixture.developer.username);
    const pipeline = await fixture.gantry.coordinator.context.stores.pipelines.findById(pending.json.pipeline_id as number);
    assert.equal(pipeline?.source, 'external');
    assert.equal(pipeline?.status, 'pending');

    const commit = await api('GET', `/projects/${project.id}/repository/commits/${project.head}`);
    assert.equal(commit.json.status, 'pending');
    assert.deepEqual(commit.json.last_pipeline, { id: pipeline!.id, ref: 'main', sha: project.head, status: 'pending' });

    const running = await post(project, { state: 'running' });
    assert.equal(running.status, 201);
    assert.equal(running.json.id, pending.json.id, 'the open status of that name and ref is updated');
    assert.equal(running.json.status, 'running');
    assert.ok(running.json.started_at);
    assert.equal(running.json.target_url, 'https://ci.example/1', 'fields not given are kept');

    const again = await post(project, { state: 'running' });
    assert.equal(again.status, 400);
    assert.match(String(again.json.message), /^Cannot transition status via :run from :running/);
    const back = await post(project, { state: 'pending' });
    assert.equal(back.status, 400);
    assert.match(String(back.json.message), /^Cannot transition status via :enqueue from :running/);

    const success = await post(project, { state: 'success', coverage: 87.5 });
    assert.equal(success.json.status, 'success');
    assert.equal(success.json.coverage, 87.5);
    assert.ok(success.json.finished_at);
    assert.equal((await fixture.gantry.coordinator.context.stores.pipelines.findById(pipeline!.id))?.status, 'success');

    // A finished status is never reopened: the same name starts a new one.
    const failed = await post(project, { state: 'failed' });
    assert.equal(failed.status, 201);
    assert.notEqual(failed.json.id, success.json.id);
    assert.equal(failed.json.status, 'failed');
    assert.equal(failed.json.pipeline_id, pipeline!.id);
    assert.equal((await api('GET', `/projects/${project.id}/repository/commits/${project.head}`)).json.status, 'failed');
  });

  it('takes name from context, each name is its own status; canceled from created is allowed', async () => {
    const project = await fixture.ciProject('statuses-names');
    const lint = await post(project, { state: 'success', context: 'ci/lint' });
    assert.equal(lint.json.name, 'ci/lint');
    const named = await post(project, { state: 'canceled', name: 'deploy', context: 'ignored' });
    assert.equal(named.json.name, 'deploy');
    assert.equal(named.json.status, 'canceled');
    assert.equal(named.json.pipeline_id, lint.json.pipeline_id);
    const other = await post(project, { state: 'running', ref: 'feature-x' });
    assert.equal(other.json.ref, 'feature-x');
    assert.notEqual(other.json.pipeline_id, lint.json.pipeline_id, 'another ref has its own pipeline');
    const listedOn = async (query: string) => (await api('GET', `/projects/${project.id}/repository/commits/${project.head}/statuses${query}`)).list.map((status) => status.ref);
    assert.deepEqual(await listedOn(''), ['main', 'main'], 'without ref, the default branch\'s only');
    assert.deepEqual(await listedOn('?ref=feature-x'), ['feature-x']);

    // A commit with no pipeline on the default branch (a bot's branch): without ref, every ref's, as GitLab's code.
    const branchCommit = await api('POST', `/projects/${project.id}/repository/commits`, {
      body: { branch: 'renovate/lodash', start_branch: 'main', commit_message: 'Update lodash', actions: [{ action: 'create', file_path: 'bump.txt', content: 'x' }] },
    });
    assert.equal(branchCommit.status, 201, branchCommit.text);
    const botSha = String(branchCommit.json.id);
    assert.equal((await api('POST', `/projects/${project.id}/statuses/${botSha}`, { body: { state: 'success', name: 'renovate/stability-days' } })).status, 201);
    const botStatuses = (await api('GET', `/projects/${project.id}/repository/commits/${botSha}/statuses`)).list;
    assert.deepEqual(botStatuses.map((status) => [status.ref, status.name]), [['renovate/lodash', 'renovate/stability-days']]);

    // pipeline_id, order_by and sort (GitLab 15's); an unknown commit is 404; callers sign in, as GitLab's API authenticates them all.
    const base = `/projects/${project.id}/repository/commits/${project.head}/statuses`;
    assert.deepEqual((await api('GET', `${base}?ref=feature-x&pipeline_id=${String(other.json.pipeline_id)}`)).list.map((status) => status.ref), ['feature-x']);
    assert.deepEqual((await api('GET', `${base}?ref=feature-x&pipeline_id=${String(lint.json.pipeline_id)}`)).list, []);
    const ascending = (await api('GET', base)).list.map((status) => status.id);
    assert.equal(ascending.length, 2);
    assert.deepEqual((await api('GET', `${base}?sort=desc`)).list.map((status) => status.id), [...ascending].reverse());
    assert.deepEqual((await api('GET', `${base}?order_by=pipeline_id&sort=asc`)).list.map((status) => status.id), ascending);
    assert.deepEqual((await api('GET', `${base}?order_by=bogus`)).json, { error: 'order_by does not have a valid value' });
    const unknown = await api('GET', `/projects/${project.id}/repository/commits/deadbeef/statuses`);
    assert.deepEqual([unknown.status, unknown.json], [404, { message: '404 Commit Not Found' }]);
    assert.equal((await api('GET', base, { token: null })).status, 401);
  });

  it('joins the CI pipeline of the sha and ref; CI jobs appear as statuses (ref, stage, name, all filters)', async () => {
    const project = await fixture.ciProject('statuses-ci');
    const { pipeline, jobs } = await fixture.pipeline(project, [{ name: 'build', stage: 'build' }, { name: 'test', stage: 'test' }]);
    const external = await post(project, { state: 'running', ref: 'main', name: 'review' });
    assert.equal(external.json.pipeline_id, pipeline.id);

    const listed = await api('GET', `/projects/${project.id}/repository/commits/${project.head}/statuses`);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.list.map((status) => [status.name, status.status]), [['build', 'pending'], ['test', 'created'], ['review', 'running']]);
    const build = listed.list[0]!;
    assert.equal(build.target_url, `http://gantry.test/${project.full_path}/-/jobs/${jobs.build!.id}`);
    assert.equal(listed.headers['x-total'], '3');

    const byName = await api('GET', `/projects/${project.id}/repository/commits/${project.head}/statuses?name=test`);
    assert.deepEqual(byName.list.map((status) => status.name), ['test']);
    const byStage = await api('GET', `/projects/${project.id}/repository/commits/${project.head}/statuses?stage=external`);
    assert.deepEqual(byStage.list.map((status) => status.name), ['review']);
    const otherRef = await api('GET', `/projects/${project.id}/repository/commits/${project.head}/statuses?ref=nope`);
    assert.deepEqual(otherRef.list, []);

    // Retried jobs show only with all=true.
    await api('POST', `/projects/${project.id}/jobs/${jobs.build!.id}/cancel`);
    await api('POST', `/projects/${project.id}/jobs/${jobs.build!.id}/retry`);
    const latest = await api('GET', `/projects/${project.id}/repository/commits/${project.head}/statuses?name=build`);
    assert.equal(latest.list.length, 1);
    const all = await api('GET', `/projects/${project.id}/repository/commits/${project.head}/statuses?name=build&all=true`);
    assert.equal(all.list.length, 2);
  });

  it("averages the statuses' coverages into the pipeline's, canceled ones too, formatted as Ruby's '%.2f' (a tie to the even digit)", async () => {
    const project = await fixture.ciProject('statuses-coverage');
    const passed = await post(project, { state: 'success', name: 'unit', coverage: 80.25 });
    const canceled = await post(project, { state: 'canceled', name: 'e2e', coverage: 80 });
    assert.deepEqual([canceled.json.pipeline_id, canceled.json.coverage], [passed.json.pipeline_id, 80]);
    const pipeline = await api('GET', `/projects/${project.id}/pipelines/${String(passed.json.pipeline_id)}`);
    assert.equal(pipeline.json.coverage, '80.12', 'the average 80.125 is a tie');
  });

  it('refuses bad input: state missing or unknown, unknown commit, unknown pipeline_id', async () => {
    const project = await fixture.ciProject('statuses-bad');
    const missing = await post(project, {});
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.json, { error: 'state is missing' });
    const unknown = await post(project, { state: 'exploded' });
    assert.equal(unknown.status, 400);
    assert.deepEqual(unknown.json, { error: 'state does not have a valid value' });
    const noCommit = await post(project, { state: 'pending' }, undefined, 'f'.repeat(40));
    assert.equal(noCommit.status, 404);
    assert.deepEqual(noCommit.json, { message: '404 Commit Not Found' });
    const noPipeline = await post(project, { state: 'pending', pipeline_id: 999999 });
    assert.equal(noPipeline.status, 404);
    assert.deepEqual(noPipeline.json, { message: '404 Pipeline Not Found' });
    const badCoverage = await post(project, { state: 'pending', coverage: 'lots' });
    assert.equal(badCoverage.status, 400);
    assert.deepEqual(badCoverage.json, { error: 'coverage is invalid' });
    // Nothing was stored by the refusals.
    assert.deepEqual((await api('GET', `/projects/${project.id}/repository/commits/${project.head}/statuses`)).list, []);
  });

  it('developers create statuses, reporters read them, others of a private project get 404', async () => {
    const project = await fixture.ciProject('statuses-private', { visibility: 'private' });
    const byReporter = await post(project, { state: 'pending' }, fixture.reporter.token);
    assert.equal(byReporter.status, 403);
    const byGuest = await post(project, { state: 'pending' }, fixture.guest.token);
    assert.equal(byGuest.status, 403);
    const byStranger = await post(project, { state: 'pending' }, fixture.stranger.token);
    assert.equal(byStranger.status, 404);
    assert.equal((await post(project, { state: 'pending' }, null)).status, 401);
    assert.equal((await post(project, { state: 'pending' }, fixture.developer.token)).status, 201);

    const read = await api('GET', `/projects/${project.id}/repository/commits/${project.head}/statuses`, { token: fixture.reporter.token });
    assert.equal(read.status, 200);
    assert.equal(read.list.length, 1);
    assert.equal((await api('GET', `/projects/${project.id}/repository/commits/${project.head}/statuses`, { token: fixture.stranger.token })).status, 404);
  });
});
