/** archive_cache and after_script as gitlab-runner's build runs them: what fails there and what only warns. */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { ShellExecutor } from '../../src/executors/shell/shell-executor.ts';
import type { JobPayload } from '../../src/protocol/job-payload.ts';
import type { JobSettings } from '../../src/runner/job/context.ts';
import { runJob } from '../../src/runner/job/engine.ts';
import { jobSettings, payload, RecordingSession, runnerIdentity, stableTrace, variable } from './support.ts';

async function run(job: JobPayload, settings: JobSettings) {
  const session = new RecordingSession();
  const outcome = await runJob({ payload: job, executor: new ShellExecutor({ buildsDir: settings.buildsDir }), session, runner: runnerIdentity, settings });
  return { outcome, trace: stableTrace(session.trace) };
}

describe('job engine: archive_cache', () => {
  it('warns "Failed to create cache" and goes on when the cache cannot be written: the job succeeds, its artifacts are uploaded', async () => {
    const settings = await jobSettings();
    // The cache directory is a file: nothing can be written below it.
    await writeFile(settings.cacheDir, 'not a directory');
    const { outcome, trace } = await run(payload({
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
    const ignored = await run(payload({ variables: [variable('GIT_STRATEGY', 'none')], steps: steps('exit 3') }), settings);
    assert.deepEqual(ignored.outcome, { state: 'success' });
    assert.ok(ignored.trace.includes('WARNING: after_script failed, but job will continue unaffected: exit status 3'), ignored.trace);
    const cache = [{ key: 'k', untracked: false, paths: ['x/'], policy: 'pull-push' as const, when: 'on_failure' as const }];
    const failing = await run(payload({ variables: [variable('GIT_STRATEGY', 'none'), variable('AFTER_SCRIPT_IGNORE_ERRORS', 'false')], cache, steps: steps('mkdir -p x && exit 3') }), settings);
    assert.deepEqual(failing.outcome, { state: 'failed', failureReason: 'script_failure', exitCode: 3 });
    assert.ok(!failing.trace.includes('after_script failed'), failing.trace);
    assert.ok(failing.trace.includes('Saving cache for failed job'), failing.trace);
    assert.ok(failing.trace.endsWith('ERROR: Job failed: exit status 3\n\u001b[0;m'), failing.trace);
    const passing = await run(payload({ variables: [variable('GIT_STRATEGY', 'none'), variable('AFTER_SCRIPT_IGNORE_ERRORS', 'false')], steps: steps('true') }), settings);
    assert.deepEqual(passing.outcome, { state: 'success' });
  });
});

describe('job engine: a failure before the script', () => {
  it('skips the script and after_script, then saves the failed job\'s caches and artifacts and cleans its files up, as gitlab-runner goes on to them', async () => {
    const settings = await jobSettings();
    const git = { repo_url: 'file:///no/such/repo.git', ref: 'main', sha: 'a'.repeat(40), before_sha: '0'.repeat(40), ref_type: 'branch' as const, refspecs: [], depth: 0 };
    const { outcome, trace } = await run(payload({
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
