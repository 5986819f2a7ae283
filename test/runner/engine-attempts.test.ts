/** The stage attempts gitlab-runner reads from the job's variables, and the runner variables it adds (CI_JOB_TIMEOUT). */
import assert from 'node:assert/strict';
import { execa } from '#deps/execa';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ShellExecutor } from '../../src/executors/shell/shell-executor.ts';
import type { Dependency, JobPayload } from '../../src/protocol/job-payload.ts';
import { runJob } from '../../src/runner/job/engine.ts';
import { jobSettings, payload, RecordingSession, runnerIdentity, runShellJob, stableTrace, variable } from './support.ts';

const script = (...lines: string[]): JobPayload['steps'] => [{ name: 'script', script: lines, timeout: 3600, when: 'on_success', allow_failure: false }];

/** A coordinator whose artifact downloads fail `failures` times before they succeed. */
class FlakyDownloads extends RecordingSession {
  downloads = 0;

  constructor(
    files: Record<number, string>,
    private readonly failures: number,
  ) {
    super(files);
  }

  override async downloadArtifacts(dependency: Dependency, destination: string): Promise<void> {
    this.downloads++;
    if (this.downloads <= this.failures) throw new Error('502 Bad Gateway');
    return super.downloadArtifacts(dependency, destination);
  }
}

async function dependencyArchive(): Promise<string> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'gantry-attempts-'));
  await execa('bash', ['-c', 'mkdir -p d/out && echo built > d/out/app.txt && cd d && zip -qr ../dep.zip out'], { cwd: work });
  return path.join(work, 'dep.zip');
}

describe('job engine: runner variables', () => {
  it('exports CI_JOB_TIMEOUT, the job timeout in seconds (two hours when the payload has none), as gitlab-runner 15.7+', async () => {
    const settings = await jobSettings();
    const given = await runShellJob(payload({ steps: script('echo "timeout=$CI_JOB_TIMEOUT"') }), settings);
    assert.ok(given.trace.includes('\ntimeout=3600\n'), given.trace);
    const none = await runShellJob(payload({ runner_info: { timeout: 0, runner_session_url: null }, steps: script('echo "timeout=$CI_JOB_TIMEOUT"') }), settings);
    assert.ok(none.trace.includes('\ntimeout=7200\n'), none.trace);
  });
});

describe('job engine: stage attempts', () => {
  for (const [name, stage] of [['RESTORE_CACHE_ATTEMPTS', 'restore_cache'], ['ARTIFACT_DOWNLOAD_ATTEMPTS', 'download_artifacts']] as const) {
    it(`fails a job whose ${name} is out of 1–10 as a system failure, before its script, with or without work for ${stage}`, async () => {
      const settings = await jobSettings();
      for (const value of ['0', '11']) {
        const { outcome, trace } = await runShellJob(payload({ variables: [variable('GIT_STRATEGY', 'none'), variable(name, value)], steps: script('echo script-ran') }), settings);
        assert.deepEqual(outcome, { state: 'failed', failureReason: 'runner_system_failure' }, trace);
        assert.ok(trace.includes(`number of attempts out of the range [1, 10] for stage: ${stage}`), trace);
        assert.ok(!trace.includes('script-ran'), trace);
      }
      // Go's Atoi refuses these: one attempt, the job runs.
      const { outcome } = await runShellJob(payload({ variables: [variable('GIT_STRATEGY', 'none'), variable(name, ' 3')] }), settings);
      assert.deepEqual(outcome, { state: 'success' });
    });
  }

  it('downloads a dependency again while ARTIFACT_DOWNLOAD_ATTEMPTS lasts; the default is one attempt', async () => {
    const archive = await dependencyArchive();
    const dependency = { id: 1500, name: 'build', token: 'dep-token', artifacts_file: { filename: 'artifacts.zip', size: 1 } };
    const run = async (attempts: string | null, failures: number) => {
      const session = new FlakyDownloads({ 1500: archive }, failures);
      const settings = await jobSettings();
      const variables = [variable('GIT_STRATEGY', 'none'), ...(attempts ? [variable('ARTIFACT_DOWNLOAD_ATTEMPTS', attempts)] : [])];
      const outcome = await runJob({ payload: payload({ variables, dependencies: [dependency], steps: script('cat out/app.txt') }), executor: new ShellExecutor({ buildsDir: settings.buildsDir }), session, runner: runnerIdentity, settings });
      return { outcome, session, trace: stableTrace(session.trace) };
    };
    const retried = await run('3', 2);
    assert.deepEqual(retried.outcome, { state: 'success' }, retried.trace);
    assert.equal(retried.session.downloads, 3);
    assert.ok(retried.trace.includes('attempt 3 of 3 (ARTIFACT_DOWNLOAD_ATTEMPTS)') && retried.trace.includes('\nbuilt\n'), retried.trace);
    const once = await run(null, 1);
    assert.deepEqual(once.outcome, { state: 'failed', failureReason: 'runner_system_failure' }, once.trace);
    assert.equal(once.session.downloads, 1);
    const spent = await run('2', 2);
    assert.equal(spent.outcome.state, 'failed', spent.trace);
    assert.equal(spent.session.downloads, 2);
  });
});
