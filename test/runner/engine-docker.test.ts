import assert from 'node:assert/strict';
import os from 'node:os';
import { describe, it } from 'node:test';
import { DockerExecutor } from '../../src/executors/docker/docker-executor.ts';
import { LABEL_JOB, LABEL_MANAGED } from '../../src/executors/docker/labels.ts';
import type { JobPayload } from '../../src/protocol/job-payload.ts';
import { runJob } from '../../src/runner/job/engine.ts';
import { BUSYBOX, DEBIAN, dockerReady, skipDocker } from '../executors/docker-support.ts';
import { gitRepository, jobSettings, payload, RecordingSession, runnerIdentity, stableTrace, variable } from './support.ts';

const script = (...lines: string[]) => [{ name: 'script' as const, script: lines, timeout: 3600, when: 'on_success' as const, allow_failure: false }];

async function runDocker(job: JobPayload, session = new RecordingSession(), environment: string[] = []) {
  const docker = await dockerReady();
  const settings = await jobSettings({ environment });
  const executor = new DockerExecutor({ pullPolicy: ['if-not-present'] }, docker);
  const outcome = await runJob({ payload: job, executor, session, runner: runnerIdentity, settings });
  const filters = JSON.stringify({ label: [`${LABEL_MANAGED}=true`, `${LABEL_JOB}=${job.id}`] });
  const left = [...(await docker.listContainers({ all: true, filters })), ...(await docker.listNetworks({ filters })), ...((await docker.listVolumes({ filters })).Volumes ?? [])];
  return { outcome, trace: stableTrace(session.trace), session, left };
}

describe('job engine (docker executor)', { skip: skipDocker }, () => {
  for (const image of [BUSYBOX, DEBIAN]) {
    it(`runs a job in ${image}: sources copied in, services by alias, artifacts copied out, nothing left`, async () => {
      const repo = await gitRepository({ 'README.md': 'from git\n' });
      const job = payload({
        image: { name: image },
        git_info: { repo_url: repo.url, ref: 'main', sha: repo.sha, before_sha: '0'.repeat(40), ref_type: 'branch', refspecs: [], depth: 0 },
        variables: [variable('GIT_STRATEGY', 'clone'), variable('SECRET', 's3cr3t-value', { masked: true, public: false })],
        services: [{ name: BUSYBOX, alias: 'web', entrypoint: null, ports: [{ number: 8080 }], command: ['sh', '-c', 'mkdir -p /www && echo served > /www/i.txt && exec httpd -f -p 8080 -h /www'] }],
        steps: script('cat README.md', 'echo $SECRET', 'echo $CI_PROJECT_DIR $CI_DISPOSABLE_ENVIRONMENT', 'wget -qO- http://web:8080/i.txt 2>/dev/null || (exec 3<>/dev/tcp/web/8080 && printf "GET /i.txt HTTP/1.0\\r\\n\\r\\n" >&3 && tail -n1 <&3)', 'mkdir -p out && echo artifact > out/a.txt'),
        artifacts: [{ name: 'out', paths: ['out/'], when: 'on_success', artifact_type: 'archive', artifact_format: 'zip' }],
      });
      const { outcome, trace, session, left } = await runDocker(job);
      assert.deepEqual(outcome, { state: 'success' }, trace);
      assert.ok(trace.includes(`Using Docker executor with image ${image} ...`));
      assert.ok(trace.includes(`Running on runner-runnerto-project-7-concurrent-0 via ${os.hostname()}...`));
      assert.ok(trace.includes('Initialized empty Git repository in /builds/project-7/.git/'));
      assert.ok(trace.includes('\nfrom git\n'));
      assert.ok(trace.includes('\n[MASKED]\n') && !trace.includes('s3cr3t-value'));
      assert.ok(trace.includes('\n/builds/project-7 true\n'));
      assert.ok(trace.includes('served'));
      assert.equal(session.uploads.length, 1);
      assert.deepEqual(left, []);
    });
  }

  it("expands image and service names as GitLab sends them, with the job's variables and the runner's environment; a service naming an unset variable starts none", async () => {
    const [registry, name] = BUSYBOX.split('/') as [string, string];
    const job = payload({
      image: { name: '$JOB_IMAGE' },
      variables: [variable('GIT_STRATEGY', 'none'), variable('JOB_IMAGE', BUSYBOX)],
      services: [
        { name: '${SERVICE_REGISTRY}/' + name, alias: 'web', entrypoint: null, ports: [], command: ['sleep', '60'] },
        { name: '$UNSET_SERVICE_IMAGE', alias: null, entrypoint: null, ports: [], command: null },
      ],
      steps: script('echo "image:$CI_JOB_IMAGE"'),
    });
    const { outcome, trace, left } = await runDocker(job, new RecordingSession(), [`SERVICE_REGISTRY=${registry}`]);
    assert.deepEqual(outcome, { state: 'success' }, trace);
    assert.ok(trace.includes(`Using Docker executor with image ${BUSYBOX} ...`), trace);
    assert.ok(trace.includes(`Starting service ${BUSYBOX} ...`), trace);
    assert.ok(!trace.includes('UNSET_SERVICE_IMAGE'), trace);
    assert.ok(trace.includes(`\nimage:${BUSYBOX}\n`), trace);
    assert.deepEqual(left, []);
  });

  it("expands a service's alias as its name; a service whose name expands to nothing but has an alias fails the job, as gitlab-runner's 'invalid service image name'", async () => {
    const served = payload({
      image: { name: BUSYBOX },
      variables: [variable('GIT_STRATEGY', 'none'), variable('WEB_ALIAS', 'web')],
      services: [{ name: BUSYBOX, alias: '$WEB_ALIAS', entrypoint: null, ports: [{ number: 8080 }], command: ['sh', '-c', 'mkdir -p /www && echo served > /www/i.txt && exec httpd -f -p 8080 -h /www'] }],
      steps: script('wget -qO- http://web:8080/i.txt'),
    });
    const named = await runDocker(served);
    assert.deepEqual(named.outcome, { state: 'success' }, named.trace);
    assert.ok(named.trace.includes('\nserved\n'), named.trace);
    const unnamed = await runDocker(payload({
      image: { name: BUSYBOX },
      variables: [variable('GIT_STRATEGY', 'none')],
      services: [{ name: '$UNSET_SERVICE_IMAGE', alias: 'db', entrypoint: null, ports: [], command: null }],
      steps: script('true'),
    }));
    assert.deepEqual(unnamed.outcome, { state: 'failed', failureReason: 'script_failure' }, unnamed.trace);
    assert.match(unnamed.trace, /ERROR: Job failed: invalid service image name: \n/);
    assert.deepEqual(unnamed.left, []);
  });

  it('fails an image that does not exist with a clear line, and leaves nothing', async () => {
    const { outcome, trace, left } = await runDocker(payload({ image: { name: 'gantry/does-not-exist:1' } }));
    assert.deepEqual(outcome, { state: 'failed', failureReason: 'script_failure' });
    assert.match(trace, /ERROR: Job failed: failed to pull image "gantry\/does-not-exist:1" with specified policies \[if-not-present\]: /);
    assert.deepEqual(left, []);
  });

  it("with GIT_STRATEGY none or empty, makes the project directory (and those leading to it below /builds) 777, as gitlab-runner's mkdir -p under umask 0000 does; 755 with FF_DISABLE_UMASK_FOR_DOCKER_EXECUTOR", async () => {
    for (const [strategy, disableUmask, mode] of [['none', false, '777'], ['empty', false, '777'], ['none', true, '755']] as const) {
      const job = payload({
        image: { name: BUSYBOX },
        git_info: { repo_url: 'http://gitlab.example/group/sub/proj.git', ref: 'main', sha: '0'.repeat(40), before_sha: '0'.repeat(40), ref_type: 'branch', refspecs: [], depth: 0 },
        variables: [variable('GIT_STRATEGY', strategy), ...(disableUmask ? [variable('FF_DISABLE_UMASK_FOR_DOCKER_EXECUTOR', 'true')] : [])],
        steps: script('stat -c "%a %n" /builds /builds/group /builds/group/sub "$CI_PROJECT_DIR"', 'touch "$CI_PROJECT_DIR/made"'),
      });
      const { outcome, trace, left } = await runDocker(job);
      assert.deepEqual(outcome, { state: 'success' }, trace);
      assert.ok(trace.includes(`\n755 /builds\n${mode} /builds/group\n${mode} /builds/group/sub\n${mode} /builds/group/sub/proj\n`), `${strategy} ${disableUmask}: ${trace}`);
      assert.deepEqual(left, []);
    }
  });

  it("fails a job whose image:pull_policy the runner does not allow, in gitlab-runner's words", async () => {
    const { outcome, trace, left } = await runDocker(payload({ image: { name: BUSYBOX, pull_policy: ['always'] } }));
    assert.deepEqual(outcome, { state: 'failed', failureReason: 'script_failure' });
    assert.ok(
      trace.includes(`ERROR: Job failed: invalid pull policy for image "${BUSYBOX}": pull_policy ([always]) defined in GitLab pipeline config is not one of the allowed_pull_policies ([if-not-present])`),
      trace,
    );
    assert.deepEqual(left, []);
  });

  it('kills the container at a cancel, long before its script would end, reports job_canceled and removes everything', async () => {
    const session = new RecordingSession();
    const job = payload({ image: { name: BUSYBOX }, steps: script('echo started', 'sleep 120') });
    const waitForStart = setInterval(() => {
      if (session.trace.includes('\nstarted\n')) {
        clearInterval(waitForStart);
        cancelledAt = Date.now();
        session.cancel();
      }
    }, 50);
    let cancelledAt = 0;
    // Cleared whatever happens: a live interval keeps the file from ever finishing.
    const { outcome, left } = await runDocker(job, session).finally(() => clearInterval(waitForStart));
    assert.ok(cancelledAt > 0);
    // Half the sleep: a killed container, whatever the machine's load.
    assert.ok(session.finishedAt - cancelledAt < 60_000, `reported ${session.finishedAt - cancelledAt} ms after the cancel`);
    assert.deepEqual(outcome, { state: 'failed', failureReason: 'job_canceled' });
    assert.deepEqual(left, []);
  });

  it('times out a docker job with job_execution_timeout', async () => {
    const { outcome, left } = await runDocker(payload({ image: { name: BUSYBOX }, runner_info: { timeout: 3, runner_session_url: null }, steps: script('sleep 60') }));
    assert.deepEqual(outcome, { state: 'failed', failureReason: 'job_execution_timeout' });
    assert.deepEqual(left, []);
  });
});
