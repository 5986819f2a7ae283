import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeArtifacts } from '../helpers/ci-blobs.ts';
import { moveJob } from '../helpers/ci-pipelines.ts';
import { RUNNER_INFO, startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * Which runner gets which job (reference §3.2 and the matching rules): tags,
 * run_untagged, paused runners, ref_protected runners, project/shared runners and the
 * project's shared_runners_enabled; and the jobs GitLab drops when a runner asks
 * (archived project, expired dependencies, a feature the runner lacks).
 */
describe('POST /jobs/request: matching', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(() => fixture.close());

  const jobStatus = async (id: number) => (await fixture.gantry.coordinator.context.stores.jobs.findById(id))?.status;
  const jobsOf = async (pipelineId: number) =>
    (await fixture.gantry.coordinator.context.stores.jobs.list({ pipelineId, sort: 'asc' }, { offset: 0, limit: 50 })).items;

  it('matches tags and run_untagged; a paused runner gets 204 with the queue value', async () => {
    const project = await fixture.ciProject('tags', 'tagged:\n  tags: [docker]\n  script: [make]\nplain:\n  script: [make]\n');
    const linuxOnly = await fixture.register(project.runners_token, { tag_list: 'linux', run_untagged: false });
    const dockerLinux = await fixture.register(project.runners_token, { tag_list: 'docker,linux', run_untagged: false });
    const untagged = await fixture.register(project.runners_token, { run_untagged: true });
    const paused = await fixture.register(project.runners_token, { tag_list: 'docker', run_untagged: true, active: false });
    await fixture.runPipeline(project.id);

    const pausedAnswer = await fixture.requestJob(paused.token);
    assert.equal(pausedAnswer.status, 204);
    assert.match(pausedAnswer.headers.get('x-gitlab-last-update') ?? '', /^lu-\d+$/);
    assert.equal((await fixture.requestJob(linuxOnly.token)).status, 204, 'docker is not among its tags, and it takes no untagged jobs');
    const tagged = await fixture.requestJob(dockerLinux.token);
    assert.equal(tagged.status, 201);
    assert.equal((tagged.json.job_info as Record<string, unknown>).name, 'tagged');
    assert.equal((await fixture.requestJob(dockerLinux.token)).status, 204, 'run_untagged false: not the untagged job');
    const plain = await fixture.requestJob(untagged.token);
    assert.equal(plain.status, 201);
    assert.equal((plain.json.job_info as Record<string, unknown>).name, 'plain');
  });

  it('gives a ref_protected runner only jobs of protected refs; other runners take any', async () => {
    const project = await fixture.ciProject('protection', 'job:\n  script: [make]\n');
    assert.equal((await fixture.gantry.api('POST', `/projects/${project.id}/repository/branches`, { body: { branch: 'feature', ref: 'main' } })).status, 201);
    assert.equal((await fixture.gantry.api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'main' } })).status, 201);
    const protectedOnly = await fixture.register(project.runners_token, { access_level: 'ref_protected' });
    const any = await fixture.register(project.runners_token);
    const feature = await fixture.runPipeline(project.id, 'feature');
    assert.equal((await fixture.requestJob(protectedOnly.token)).status, 204, 'feature is not protected');
    const main = await fixture.runPipeline(project.id, 'main');
    const taken = await fixture.requestJob(protectedOnly.token);
    assert.equal(taken.status, 201);
    assert.equal((taken.json.git_info as Record<string, unknown>).ref, 'main');
    assert.equal((await jobsOf(main))[0]?.status, 'running');
    const other = await fixture.requestJob(any.token);
    assert.equal(other.status, 201);
    assert.equal((await jobsOf(feature))[0]?.status, 'running');
  });

  it('gives shared runners only projects with shared_runners_enabled; project runners only their projects', async () => {
    const tag = `only-${Date.now()}`;
    const ci = `job:\n  tags: [${tag}]\n  script: [make]\n`;
    const closed = await fixture.ciProject('no-shared', ci, { shared_runners_enabled: false });
    const elsewhere = await fixture.ciProject('elsewhere', 'job:\n  script: [make]\n');
    const shared = await fixture.register(await fixture.instanceToken(), { tag_list: tag, run_untagged: false });
    const foreign = await fixture.register(elsewhere.runners_token, { tag_list: tag });
    const pipeline = await fixture.runPipeline(closed.id);
    assert.equal((await fixture.requestJob(shared.token)).status, 204);
    assert.equal((await fixture.requestJob(foreign.token)).status, 204, "another project's runner");
    await fixture.gantry.coordinator.context.stores.projects.update(closed.id, { shared_runners_enabled: true });
    const taken = await fixture.requestJob(shared.token);
    assert.equal(taken.status, 201);
    assert.equal(taken.json.id, (await jobsOf(pipeline))[0]?.id);
  });

  it('fails the job of an archived project with archived_failure and answers 204', async () => {
    const project = await fixture.ciProject('archived', 'job:\n  script: [make]\n');
    const runner = await fixture.register(project.runners_token);
    const pipelineId = await fixture.runPipeline(project.id);
    await fixture.gantry.coordinator.context.stores.projects.update(project.id, { archived: true });
    assert.equal((await fixture.requestJob(runner.token)).status, 204);
    const [job] = await jobsOf(pipelineId);
    assert.equal(job?.status, 'failed');
    assert.equal(job?.failure_reason, 'archived_failure');
    assert.equal((await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${pipelineId}`)).json.status, 'failed');
  });

  it('fails a job whose dependency artifacts expired with missing_dependency_failure', async () => {
    const project = await fixture.ciProject('expired', 'stages: [a, b]\nbuild:\n  stage: a\n  script: [make]\nuse:\n  stage: b\n  script: [make]\n');
    const runner = await fixture.register(project.runners_token);
    const pipelineId = await fixture.runPipeline(project.id);
    const build = await fixture.requestJob(runner.token);
    assert.equal(build.status, 201);
    const [buildJob, useJob] = await jobsOf(pipelineId);
    assert.ok(buildJob && useJob);
    await storeArtifacts(fixture.gantry.coordinator, buildJob, { 'a.txt': 'a' }, new Date(Date.now() - 60_000).toISOString());
    await moveJob(fixture.gantry.coordinator, buildJob, 'success');
    assert.equal(await jobStatus(useJob.id), 'pending');
    assert.equal((await fixture.requestJob(runner.token)).status, 204);
    const failed = await fixture.gantry.coordinator.context.stores.jobs.findById(useJob.id);
    assert.equal(failed?.status, 'failed');
    assert.equal(failed?.failure_reason, 'missing_dependency_failure');
  });

  it('fails a job needing a feature the runner lacks with runner_unsupported, then hands out the next', async () => {
    const project = await fixture.ciProject('features', 'excluding:\n  script: [make]\n  artifacts:\n    paths: [out/]\n    exclude: [out/*.tmp]\nsimple:\n  script: [make]\n');
    const runner = await fixture.register(project.runners_token);
    const pipelineId = await fixture.runPipeline(project.id);
    const info = { ...RUNNER_INFO, features: { ...RUNNER_INFO.features, artifacts_exclude: false } };
    const answer = await fixture.requestJob(runner.token, undefined, info);
    assert.equal(answer.status, 201);
    assert.equal((answer.json.job_info as Record<string, unknown>).name, 'simple');
    const [excluding] = await jobsOf(pipelineId);
    assert.equal(excluding?.name, 'excluding');
    assert.equal(excluding?.status, 'failed');
    assert.equal(excluding?.failure_reason, 'runner_unsupported');
  });

  it('hands a release job only to a runner with multi_build_steps, with its release step', async () => {
    const ci = 'releasing:\n  script: [make]\n  release:\n    tag_name: v1\n    description: first\n';
    const project = await fixture.ciProject('releases', ci);
    const runner = await fixture.register(project.runners_token);
    await fixture.runPipeline(project.id);
    const withSteps = await fixture.requestJob(runner.token, undefined, { ...RUNNER_INFO, features: { ...RUNNER_INFO.features, multi_build_steps: true } });
    assert.equal(withSteps.status, 201);
    const steps = withSteps.json.steps as Array<{ name: string; script: string[] }>;
    assert.deepEqual(steps.map((step) => step.name), ['script', 'release']);
    assert.deepEqual(steps[1]?.script, ['release-cli create --description "first" --tag-name "v1"']);

    const second = await fixture.runPipeline(project.id);
    assert.equal((await fixture.requestJob(runner.token, undefined, { ...RUNNER_INFO, features: { ...RUNNER_INFO.features, multi_build_steps: false } })).status, 204);
    const [job] = await jobsOf(second);
    assert.equal(job?.failure_reason, 'runner_unsupported');
  });
});
