import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { jobTokenDigest } from '../../src/coordinator/services/ci/runners/job-tokens.ts';
import { storeArtifacts } from '../helpers/ci-blobs.ts';
import { moveJob } from '../helpers/ci-pipelines.ts';
import { startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

const run = promisify(execFile);

/**
 * `POST /api/v4/jobs/request` as gitlab-runner v13.12 sends it (reference/runner-protocol.md
 * §3): 403 for unknown tokens, 204 with X-GitLab-Last-Update, 201 with the §3.4 payload as
 * application/json, the job and its pipeline running afterwards.
 */
const CI = `
stages: [build, test]
variables:
  GLOBAL_VAR: global
build:
  stage: build
  image: { name: ruby:2.7, entrypoint: ["/bin/sh"] }
  services:
    - name: postgres:12
      alias: db
      pull_policy: if-not-present
  before_script: [echo before]
  script: [echo build, make]
  after_script: [echo after]
  timeout: 30m
  artifacts:
    paths: [out/]
    exclude: [out/*.tmp]
    expire_in: 1 week
  cache:
    key: deps
    paths: [vendor/]
test:
  stage: test
  script: [make test]
`;

describe('POST /jobs/request', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(() => fixture.close());

  it('answers 403 for an unknown runner token and 400 without one', async () => {
    const unknown = await fixture.requestJob('not-a-runner-token');
    assert.equal(unknown.status, 403);
    assert.deepEqual(unknown.json, { message: '403 Forbidden' });
    const missing = await fixture.post('/jobs/request', { info: {} });
    assert.equal(missing.status, 400);
  });

  it('answers 204 with X-GitLab-Last-Update when there is nothing, at once for a runner with no last_update', async () => {
    const project = await fixture.ciProject('idle', CI);
    const runner = await fixture.register(project.runners_token);
    const started = Date.now();
    const response = await fixture.requestJob(runner.token);
    assert.equal(response.status, 204);
    assert.match(response.headers.get('x-gitlab-last-update') ?? '', /^lu-\d+$/);
    assert.equal(response.text, '');
    assert.ok(Date.now() - started < 25_000, 'not held for the 50 s poll');
    const details = await fixture.gantry.api('GET', `/runners/${runner.id}`);
    assert.equal(details.json.version, '13.12.0');
    assert.equal(details.json.platform, 'linux');
    assert.equal(details.json.architecture, 'amd64');
    assert.equal(details.json.ip_address, '127.0.0.1');
    assert.notEqual(details.json.contacted_at, null);
  });

  it('hands out a job: 201 application/json with the §3.4 payload; job, stage and pipeline running', async () => {
    const project = await fixture.ciProject('payload', CI);
    const runner = await fixture.register(project.runners_token, { maximum_timeout: 900, tag_list: 'linux,docker', description: 'payload host' });
    const pipelineId = await fixture.runPipeline(project.id);
    const response = await fixture.requestJob(runner.token);
    assert.equal(response.status, 201, response.text);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.equal(response.headers.get('x-gitlab-last-update'), null);
    const payload = response.json;
    assert.deepEqual(Object.keys(payload), [
      'id', 'token', 'allow_git_fetch', 'job_info', 'git_info', 'runner_info', 'variables', 'steps', 'image', 'services', 'artifacts', 'cache',
      'credentials', 'dependencies', 'features',
    ]);
    const token = payload.token as string;
    assert.match(token, /^[\w-]{20}$/);
    assert.deepEqual(payload.job_info, { name: 'build', stage: 'build', project_id: project.id, project_name: 'payload' });
    const group = await fixture.gantry.api('GET', `/groups/${fixture.groupId}`);
    const projectPath = `${String(group.json.full_path)}/payload`;
    assert.deepEqual(payload.git_info, {
      repo_url: `http://gitlab-ci-token:${token}@gantry.test/${projectPath}.git`,
      ref: 'main',
      sha: project.headSha,
      before_sha: '0000000000000000000000000000000000000000',
      ref_type: 'branch',
      refspecs: [`+refs/pipelines/${pipelineId}:refs/pipelines/${pipelineId}`, '+refs/heads/main:refs/remotes/origin/main'],
      depth: 50,
    });
    assert.deepEqual(payload.runner_info, { timeout: 900, runner_session_url: null }, "30m capped by the runner's maximum_timeout");
    const variables = new Map((payload.variables as Array<Record<string, unknown>>).map((variable) => [variable.key, variable]));
    assert.deepEqual(variables.get('CI_JOB_TOKEN'), { key: 'CI_JOB_TOKEN', value: token, public: false, masked: true });
    assert.equal(variables.get('CI_JOB_ID')?.value, String(payload.id));
    assert.equal(variables.get('CI_PROJECT_PATH')?.value, projectPath);
    assert.equal(variables.get('CI_SERVER_URL')?.value, 'http://gantry.test');
    assert.equal(variables.get('CI_COMMIT_SHA')?.value, project.headSha);
    assert.equal(variables.get('CI_COMMIT_REF_NAME')?.value, 'main');
    assert.equal(variables.get('CI_COMMIT_MESSAGE')?.value, 'Add CI\n\nwith a body');
    assert.match(String(variables.get('CI_COMMIT_TIMESTAMP')?.value), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'whole seconds, as GitLab');
    assert.equal(variables.get('CI_PIPELINE_ID')?.value, String(pipelineId));
    assert.equal(variables.get('GLOBAL_VAR')?.value, 'global');
    assert.equal(variables.get('CI_RUNNER_ID')?.value, String(runner.id));
    assert.equal(variables.get('CI_RUNNER_DESCRIPTION')?.value, 'payload host');
    assert.equal(variables.get('CI_RUNNER_TAGS')?.value, 'docker, linux', 'the runner record’s tags, sorted, as GitLab 13 prints its tag list');
    assert.deepEqual(payload.steps, [
      { name: 'script', script: ['echo before', 'echo build', 'make'], timeout: 900, when: 'on_success', allow_failure: false },
      { name: 'after_script', script: ['echo after'], timeout: 900, when: 'always', allow_failure: true },
    ]);
    assert.deepEqual(payload.image, { name: 'ruby:2.7', entrypoint: ['/bin/sh'], ports: [] });
    assert.deepEqual(payload.services, [{ name: 'postgres:12', entrypoint: null, ports: [], alias: 'db', command: null, pull_policy: ['if-not-present'] }]);
    assert.deepEqual(payload.artifacts, [
      { name: 'artifacts', untracked: false, paths: ['out/'], exclude: ['out/*.tmp'], when: 'on_success', expire_in: '1 week', artifact_type: 'archive', artifact_format: 'zip' },
    ]);
    assert.deepEqual(payload.cache, [{ key: 'deps', untracked: false, paths: ['vendor/'], policy: 'pull-push', when: 'on_success' }]);
    assert.deepEqual(payload.dependencies, []);
    assert.deepEqual(payload.features, { trace_sections: true });

    const { stores } = fixture.gantry.coordinator.context;
    const job = await stores.jobs.findById(payload.id as number);
    assert.equal(job?.status, 'running');
    assert.equal(job?.runner_id, runner.id);
    assert.equal((await stores.jobs.findByTokenDigest(jobTokenDigest(token)))?.id, job?.id, 'the job token is the one stored');
    const pipeline = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${pipelineId}`);
    assert.equal(pipeline.json.status, 'running');
    const jobs = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${pipelineId}/jobs`);
    assert.deepEqual(Object.fromEntries(jobs.list.map((listed) => [listed.name, listed.status])), { build: 'running', test: 'created' });
    assert.notEqual(pipeline.json.started_at, null);

    const none = await fixture.requestJob(runner.token);
    assert.equal(none.status, 204, 'the job went to one runner only');
  });

  it("gives a job without timeout the project's build_timeout, capped by the runner's maximum_timeout", async () => {
    const project = await fixture.ciProject('default-timeout', 'unit:\n  script: [make]\n');
    const buildTimeout = (await fixture.gantry.api('GET', `/projects/${project.id}`)).json.build_timeout;
    assert.equal(buildTimeout, 3600);
    const uncapped = await fixture.register(project.runners_token);
    await fixture.runPipeline(project.id);
    const first = await fixture.requestJob(uncapped.token);
    assert.equal(first.status, 201, first.text);
    assert.deepEqual(first.json.runner_info, { timeout: buildTimeout, runner_session_url: null });
    assert.ok((first.json.steps as Array<{ timeout: number }>).every((step) => step.timeout === buildTimeout));
    const capped = await fixture.register(project.runners_token, { maximum_timeout: 1800 });
    await fixture.runPipeline(project.id);
    const second = await fixture.requestJob(capped.token);
    assert.equal(second.status, 201, second.text);
    assert.deepEqual(second.json.runner_info, { timeout: 1800, runner_session_url: null });
  });

  it('sends image and service names, cache keys and the artifact name unexpanded: a raw variable holding a `$` reaches the runner once', async () => {
    const ci = `
variables:
  IMAGE: { value: "registry.test/$NAME", expand: false }
  TAG: "7"
build:
  image: $IMAGE
  services: [redis:$TAG]
  cache: { key: "deps-$IMAGE", paths: [vendor/] }
  artifacts: { name: "out-$CI_JOB_NAME", paths: [out/] }
  script: [make]
`;
    const project = await fixture.ciProject('unexpanded', ci);
    const runner = await fixture.register(project.runners_token);
    await fixture.runPipeline(project.id);
    const answer = await fixture.requestJob(runner.token);
    assert.equal(answer.status, 201, answer.text);
    assert.equal((answer.json.image as { name: string }).name, '$IMAGE');
    assert.deepEqual((answer.json.services as Array<{ name: string }>).map((service) => service.name), ['redis:$TAG']);
    assert.equal((answer.json.cache as Array<{ key: string }>)[0]?.key, 'deps-$IMAGE');
    assert.equal((answer.json.artifacts as Array<{ name: string }>)[0]?.name, 'out-$CI_JOB_NAME');
    const image = (answer.json.variables as Array<Record<string, unknown>>).find((variable) => variable.key === 'IMAGE');
    assert.deepEqual(image, { key: 'IMAGE', value: 'registry.test/$NAME', public: true, masked: false, raw: true });
  });

  it('lists dependencies with their artifacts file and the job token', async () => {
    const project = await fixture.ciProject('deps', CI);
    const runner = await fixture.register(project.runners_token);
    await fixture.runPipeline(project.id);
    const build = await fixture.requestJob(runner.token);
    assert.equal(build.status, 201);
    const buildJob = await fixture.gantry.coordinator.context.stores.jobs.findById(build.json.id as number);
    assert.ok(buildJob);
    await storeArtifacts(fixture.gantry.coordinator, buildJob, { 'out/a.txt': 'hello' });
    await moveJob(fixture.gantry.coordinator, buildJob, 'success');

    const test = await fixture.requestJob(runner.token);
    assert.equal(test.status, 201, test.text);
    const dependencies = test.json.dependencies as Array<Record<string, unknown>>;
    assert.equal(dependencies.length, 1);
    const [dependency] = dependencies;
    assert.equal(dependency?.id, buildJob.id);
    assert.equal(dependency?.name, 'build');
    assert.equal(dependency?.token, test.json.token);
    assert.equal((dependency?.artifacts_file as Record<string, unknown>).filename, 'artifacts.zip');
    assert.ok(((dependency?.artifacts_file as Record<string, unknown>).size as number) > 0);
  });
  it("lets the job token clone its own private project while the job runs, and no other project, and not afterwards", async () => {
    const project = await fixture.ciProject('private-clone', 'job:\n  script: [make]\n', { visibility: 'private' });
    const other = await fixture.ciProject('other-private', 'job:\n  script: [make]\n', { visibility: 'private' });
    const runner = await fixture.register(project.runners_token);
    await fixture.runPipeline(project.id);
    const answer = await fixture.requestJob(runner.token);
    assert.equal(answer.status, 201);
    const token = answer.json.token as string;
    const group = await fixture.gantry.api('GET', `/groups/${fixture.groupId}`);
    const url = (path: string) => `${fixture.baseUrl.replace('http://', `http://gitlab-ci-token:${token}@`)}/${String(group.json.full_path)}/${path}.git`;
    const lsRemote = (path: string) =>
      run('git', ['ls-remote', url(path)], { env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } }).then(
        ({ stdout }) => ({ ok: true, stdout }),
        () => ({ ok: false, stdout: '' }),
      );
    const own = await lsRemote('private-clone');
    assert.equal(own.ok, true);
    assert.match(own.stdout, new RegExp(`^${project.headSha}\\trefs/heads/main$`, 'm'));
    assert.equal((await lsRemote('other-private')).ok, false, 'another project');
    const job = await fixture.gantry.coordinator.context.stores.jobs.findById(answer.json.id as number);
    assert.ok(job && other);
    await moveJob(fixture.gantry.coordinator, job, 'success');
    assert.equal((await lsRemote('private-clone')).ok, false, 'the job finished');
  });
});
