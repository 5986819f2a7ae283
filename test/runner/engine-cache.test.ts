/** archive_cache as gitlab-runner's generated script runs it: a cache that cannot be written is a warning, never the job's failure. */
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
