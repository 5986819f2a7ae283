/** The stages around the script as gitlab-runner's build runs them: what fails there, what only warns, their timeouts. */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { ShellExecutor } from '../../src/executors/shell/shell-executor.ts';
import type { JobPayload } from '../../src/protocol/job-payload.ts';
import { runJob } from '../../src/runner/job/engine.ts';
import { parseGoDuration } from '../../src/runner/job/stage-timeouts.ts';
import { jobSettings, payload, RecordingSession, runnerIdentity, variable, runShellJob } from './support.ts';

describe('job engine: archive_cache', () => {
  it('warns "Failed to create cache" and goes on when the cache cannot be written: the job succeeds, its artifacts are uploaded', async () => {
    const settings = await jobSettings();
    // The cache directory is a file: nothing can be written below it.
    await writeFile(settings.cacheDir, 'not a directory');
    const { outcome, trace } = await runShellJob(payload({
      variables: [variable('GIT_STRATEGY', 'none')],
      cache: [{ key: 'deps', untracked: false, paths: ['vendor/'], policy: 'pull-push', when: 'on_success' }],
      artifacts: [{ name: 'out', untracked: false, paths: ['vendor/'], when: 'on_success', artifact_type: 'archive', artifact_format: 'zip' }],
      steps: [{ name: 'script', script: ['mkdir -p vendor', 'echo lib > vendor/lib.txt'], timeout: 3600, when: 'on_success', allow_failure: false }],
    }), settings);
    assert.deepEqual(outcome, { state: 'success' }, trace);
    assert.match(trace, /Creating cache deps\.\.\.\u001b\[0;m\nvendor\/: found 2 matching artifact files and directories\n\u001b\[0;33mWARNING: [^\n]*ENOTDIR[^\n]*\n\u001b\[0;m\u001b\[0;33mWARNING: Failed to create cache\n/, trace);
    assert.ok(trace.includes('Uploading artifacts...'), trace);
    assert.ok(trace.endsWith('Job succeeded\n\u001b[0;m'), trace);
  });
});

describe('job engine: after_script errors', () => {
  const steps = (after: string): JobPayload['steps'] => [
    { name: 'script', script: ['echo main'], timeout: 3600, when: 'on_success', allow_failure: false },
    { name: 'after_script', script: [after], timeout: 3600, when: 'always', allow_failure: true },
  ];

  it('a failing after_script is a warning by default, and fails the job with AFTER_SCRIPT_IGNORE_ERRORS false (gitlab-runner 17), its on_failure cache saved', async () => {
    const settings = await jobSettings();
    const ignored = await runShellJob(payload({ variables: [variable('GIT_STRATEGY', 'none')], steps: steps('exit 3') }), settings);
    assert.deepEqual(ignored.outcome, { state: 'success' });
    assert.ok(ignored.trace.includes('WARNING: after_script failed, but job will continue unaffected: exit status 3'), ignored.trace);
    const cache = [{ key: 'k', untracked: false, paths: ['x/'], policy: 'pull-push' as const, when: 'on_failure' as const }];
    const failing = await runShellJob(payload({ variables: [variable('GIT_STRATEGY', 'none'), variable('AFTER_SCRIPT_IGNORE_ERRORS', 'false')], cache, steps: steps('mkdir -p x && exit 3') }), settings);
    assert.deepEqual(failing.outcome, { state: 'failed', failureReason: 'script_failure', exitCode: 3 });
    assert.ok(!failing.trace.includes('after_script failed'), failing.trace);
    assert.ok(failing.trace.includes('Saving cache for failed job'), failing.trace);
    assert.ok(failing.trace.endsWith('ERROR: Job failed: exit status 3\n\u001b[0;m'), failing.trace);
    const passing = await runShellJob(payload({ variables: [variable('GIT_STRATEGY', 'none'), variable('AFTER_SCRIPT_IGNORE_ERRORS', 'false')], steps: steps('true') }), settings);
    assert.deepEqual(passing.outcome, { state: 'success' });
  });
});

describe('job engine: a failure before the script', () => {
  it('skips the script and after_script, then saves the failed job\'s caches and artifacts and cleans its files up, as gitlab-runner goes on to them', async () => {
    const settings = await jobSettings();
    const git = { repo_url: 'file:///no/such/repo.git', ref: 'main', sha: 'a'.repeat(40), before_sha: '0'.repeat(40), ref_type: 'branch' as const, refspecs: [], depth: 0 };
    const { outcome, trace } = await runShellJob(payload({
      git_info: git,
      variables: [variable('GIT_STRATEGY', 'clone'), variable('SECRET_FILE', 'content', { file: true })],
      cache: [{ key: 'k', untracked: false, paths: ['vendor/'], policy: 'pull-push', when: 'on_failure' }],
      artifacts: [{ name: 'logs', untracked: false, paths: ['logs/'], when: 'always', artifact_type: 'archive', artifact_format: 'zip' }],
      steps: [
        { name: 'script', script: ['echo never'], timeout: 3600, when: 'on_success', allow_failure: false },
        { name: 'after_script', script: ['echo after'], timeout: 3600, when: 'always', allow_failure: true },
      ],
    }), settings);
    assert.deepEqual(outcome, { state: 'failed', failureReason: 'script_failure', exitCode: 128 });
    assert.ok(!trace.includes('step_script') && !trace.includes('Running after_script'), trace);
    const order = ['Getting source from Git repository', 'Saving cache for failed job', 'Uploading artifacts for failed job', 'Cleaning up file based variables', 'ERROR: Job failed: exit status 128'];
    const at = order.map((text) => trace.indexOf(text));
    assert.ok(at.every((index, position) => index >= 0 && (position === 0 || index > at[position - 1]!)), trace);
  });
});

describe('job engine: RUNNER_SCRIPT_TIMEOUT and RUNNER_AFTER_SCRIPT_TIMEOUT', () => {
  const steps = (script: string, after: string): JobPayload['steps'] => [
    { name: 'script', script: [script], timeout: 3600, when: 'on_success', allow_failure: false },
    { name: 'after_script', script: [after], timeout: 3600, when: 'always', allow_failure: true },
  ];

  it('reads Go durations as gitlab-runner does', () => {
    assert.equal(parseGoDuration('1h30m'), 5_400_000);
    assert.equal(parseGoDuration('1.5s'), 1500);
    assert.equal(parseGoDuration('300ms'), 300);
    assert.equal(parseGoDuration('-2m'), -120_000);
    assert.equal(parseGoDuration('0'), 0);
    for (const bad of ['', '10', '1x', 's', '1h 2m']) assert.equal(parseGoDuration(bad), null, bad);
  });

  it('ends the script at RUNNER_SCRIPT_TIMEOUT: after_script runs with CI_JOB_STATUS=timedout, the job fails with job_execution_timeout', async () => {
    const settings = await jobSettings();
    const { outcome, trace } = await runShellJob(payload({ variables: [variable('GIT_STRATEGY', 'none'), variable('RUNNER_SCRIPT_TIMEOUT', '1s')], steps: steps('sleep 30', 'echo "after $CI_JOB_STATUS"') }), settings);
    assert.deepEqual(outcome, { state: 'failed', failureReason: 'job_execution_timeout' });
    assert.ok(trace.includes('\nafter timedout\n'), trace);
    assert.ok(trace.endsWith('ERROR: Job failed: script timeout: context deadline exceeded\n\u001b[0;m'), trace);
  });

  it('bounds after_script by RUNNER_AFTER_SCRIPT_TIMEOUT, and warns about values it leaves out', async () => {
    const settings = await jobSettings();
    const { outcome, trace } = await runShellJob(payload({
      variables: [variable('GIT_STRATEGY', 'none'), variable('RUNNER_AFTER_SCRIPT_TIMEOUT', '1s'), variable('RUNNER_SCRIPT_TIMEOUT', '5 minutes')],
      steps: steps('true', 'sleep 30'),
    }), settings);
    assert.deepEqual(outcome, { state: 'success' });
    assert.ok(trace.includes('WARNING: Ignoring malformed RUNNER_SCRIPT_TIMEOUT timeout: 5 minutes'), trace);
    assert.ok(trace.includes('WARNING: after_script failed, but job will continue unaffected: execution took longer than 1s seconds'), trace);
    const long = await runShellJob(payload({ runner_info: { timeout: 60, runner_session_url: null }, variables: [variable('GIT_STRATEGY', 'none'), variable('RUNNER_SCRIPT_TIMEOUT', '2h'), variable('RUNNER_AFTER_SCRIPT_TIMEOUT', '-1s')] }), settings);
    assert.ok(long.trace.includes('WARNING: RUNNER_SCRIPT_TIMEOUT timeout: 2h is longer than job timeout. Setting to job timeout'), long.trace);
    assert.ok(long.trace.includes('WARNING: Ignoring relative RUNNER_AFTER_SCRIPT_TIMEOUT timeout: -1s'), long.trace);
  });
});

describe('job engine: CI_DEBUG_TRACE', () => {
  it('is read as Go ParseBool does: 1 and TRUE trace the commands, a word it does not know does not', async () => {
    const settings = await jobSettings();
    for (const [value, traced] of [['1', true], ['TRUE', true], ['yes', false]] as const) {
      const { trace } = await runShellJob(payload({ variables: [variable('GIT_STRATEGY', 'none'), variable('CI_DEBUG_TRACE', value)], steps: [{ name: 'script', script: ['echo Hello World'], timeout: 3600, when: 'on_success', allow_failure: false }] }), settings);
      assert.equal(/\n\++ echo Hello World\n/.test(trace), traced, `${value}\n${trace}`);
    }
  });
});

describe('job engine: artifacts:name', () => {
  it('has the job\'s variables expanded, as gitlab-runner\'s uploader receives it', async () => {
    const settings = await jobSettings();
    const session = new RecordingSession();
    const job = payload({
      variables: [variable('GIT_STRATEGY', 'none'), variable('FLAVOUR', 'release')],
      artifacts: [{ name: 'out-$CI_SERVER-${FLAVOUR}', untracked: false, paths: ['out/'], when: 'on_success', artifact_type: 'archive', artifact_format: 'zip' }],
      steps: [{ name: 'script', script: ['mkdir -p out', 'echo x > out/f'], timeout: 3600, when: 'on_success', allow_failure: false }],
    });
    const outcome = await runJob({ payload: job, executor: new ShellExecutor({ buildsDir: settings.buildsDir }), session, runner: runnerIdentity, settings });
    assert.deepEqual(outcome, { state: 'success' });
    assert.deepEqual(session.uploads.map((upload) => upload.fileName), ['out-yes-release.zip']);
  });
});

describe('job engine: the archiver\'s lines', () => {
  it('names each path and exclude rule as the job gave it, its variables expanded ($CI_PROJECT_DIR/... stays absolute), as gitlab-runner\'s archiver does', async () => {
    const settings = await jobSettings();
    const projectDir = `${settings.buildsDir}/runnerto/0/project-7`;
    const { outcome, trace } = await runShellJob(payload({
      variables: [variable('GIT_STRATEGY', 'none'), variable('OUT', 'out')],
      artifacts: [{ name: 'out', untracked: false, paths: ['$CI_PROJECT_DIR/$OUT/', 'other/'], exclude: ['${CI_PROJECT_DIR}/out/*.log'], when: 'on_success', artifact_type: 'archive', artifact_format: 'zip' }],
      steps: [{ name: 'script', script: ['mkdir -p out other', 'echo a > out/a.txt', 'echo l > out/l.log', 'echo o > other/o.txt'], timeout: 3600, when: 'on_success', allow_failure: false }],
    }), settings);
    assert.deepEqual(outcome, { state: 'success' }, trace);
    assert.ok(trace.includes(`\n${projectDir}/out/: found 2 matching artifact files and directories\u001b[0;m\n`), trace);
    assert.ok(trace.includes('\nother/: found 2 matching artifact files and directories\u001b[0;m\n'), trace);
    assert.ok(trace.includes(`\n${projectDir}/out/*.log: excluded 1 files\u001b[0;m\n`), trace);
  });
});
