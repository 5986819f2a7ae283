/**
 * The job engine and today's gitlab-runner: a graceful cancel stops the script and still runs
 * after_script (CI_JOB_STATUS=canceled); FF_TIMESTAMPS prefixes every log line; the job
 * reports before its environment is cleaned up when the caller takes the clean-up.
 */
import assert from 'node:assert/strict';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ShellExecutor } from '../../src/executors/shell/shell-executor.ts';
import type { Environment, Executor } from '../../src/executors/types.ts';
import type { JobPayload } from '../../src/protocol/job-payload.ts';
import type { JobSettings } from '../../src/runner/job/context.ts';
import { runJob } from '../../src/runner/job/engine.ts';
import { renderedLines, withoutTimestamps } from '../../src/shared/log-lines.ts';
import { jobSettings, payload, RecordingSession, runnerIdentity, variable } from './support.ts';

const script = (...lines: string[]) => [{ name: 'script' as const, script: lines, timeout: 3600, when: 'on_success' as const, allow_failure: false }];
const afterScript = (...lines: string[]) => ({ name: 'after_script' as const, script: lines, timeout: 3600, when: 'always' as const, allow_failure: true });

async function run(job: JobPayload, settings: JobSettings, session: RecordingSession, executor?: Executor, onCleanup?: (cleanup: Promise<void>) => void) {
  return runJob({ payload: job, executor: executor ?? new ShellExecutor({ buildsDir: settings.buildsDir }), session, runner: runnerIdentity, settings, onCleanup });
}

async function waitForFile(file: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (await access(file).then(() => true, () => false)) return;
    assert.ok(Date.now() < deadline, `${file} never appeared`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('graceful cancel in the engine', () => {
  it('stops the script, runs after_script with CI_JOB_STATUS=canceled, then reports job_canceled', async () => {
    const settings = await jobSettings();
    const session = new RecordingSession();
    const pidFile = path.join(settings.buildsDir, 'script.pid');
    const job = payload({
      steps: [...script(`echo $$ > ${pidFile}`, 'sleep 60', 'echo script-not-killed'), afterScript('echo "after $CI_JOB_STATUS"', `kill -0 $(cat ${pidFile}) 2>/dev/null && echo script-alive || echo script-gone`)],
    });
    const running = run(job, settings, session);
    await waitForFile(pidFile);
    session.requestCancel();
    const outcome = await running;
    assert.deepEqual(outcome, { state: 'failed', failureReason: 'job_canceled' });
    assert.ok(session.trace.includes('after canceled'), 'after_script ran, told the job was canceled');
    assert.ok(session.trace.includes('script-gone'), 'the script was stopped before after_script ran');
    assert.ok(!session.trace.includes('script-not-killed'));
    assert.ok(session.trace.includes('ERROR: Job failed: canceled'));
  });

  it('a hard cancel during the graceful one stops after_script too', async () => {
    const settings = await jobSettings();
    const session = new RecordingSession();
    const started = path.join(settings.buildsDir, 'script-started');
    const marker = path.join(settings.buildsDir, 'after-started');
    const job = payload({ steps: [...script(`touch ${started}`, 'sleep 60'), afterScript(`touch ${marker}`, 'sleep 60', 'echo after-not-killed')] });
    const running = run(job, settings, session);
    await waitForFile(started);
    session.requestCancel();
    await waitForFile(marker);
    session.cancel();
    const outcome = await running;
    assert.deepEqual(outcome, { state: 'failed', failureReason: 'job_canceled' });
    assert.ok(!session.trace.includes('after-not-killed'));
  });
});

describe('FF_TIMESTAMPS', () => {
  it('prefixes every line with its time and stream when the job asks for it; the text reads as without', async () => {
    const settings = await jobSettings();
    const plain = new RecordingSession();
    await run(payload({ steps: script('echo hello', 'printf "partial"') }), settings, plain);
    const stamped = new RecordingSession();
    await run(payload({ steps: script('echo hello', 'printf "partial"'), variables: [...payload().variables, variable('FF_TIMESTAMPS', 'true')] }), settings, stamped);
    const lines = stamped.trace.split('\n').filter((line) => line !== '');
    for (const line of lines) assert.match(line, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z 0[01]O[ +]/, `line without prefix: ${JSON.stringify(line)}`);
    assert.ok(lines.some((line) => / 00O \x1b\[0KRunning with gantry-runner/.test(line)), 'runner lines on stream 0');
    assert.ok(lines.some((line) => / 01O hello$/.test(line)), 'script output on stream 1');
    assert.ok(lines.some((line) => / 01O partial$/.test(line)), 'a partial line ends with the stage');
    const text = withoutTimestamps(stamped.trace);
    for (const expected of ['$ echo hello', 'hello\n', 'partial', 'Job succeeded']) assert.ok(text.includes(expected), expected);
    assert.ok(renderedLines(stamped.trace).every((line) => line.time !== null));
    assert.ok(!plain.trace.includes(' 01O '), 'no prefixes without the flag');
  });

  it('takes the flag from [runners.feature_flags], which the job cannot override (gitlab-runner\'s precedence)', async () => {
    const settings = await jobSettings({ featureFlags: { FF_TIMESTAMPS: true } });
    const fromConfig = new RecordingSession();
    await run(payload({ steps: script('echo a') }), settings, fromConfig);
    assert.match(fromConfig.trace, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z 00O /);
    const notOverridden = new RecordingSession();
    await run(payload({ steps: script('echo a'), variables: [...payload().variables, variable('FF_TIMESTAMPS', 'false')] }), settings, notOverridden);
    assert.match(notOverridden.trace, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z 00O /);
    const configOff = new RecordingSession();
    await run(payload({ steps: script('echo a'), variables: [...payload().variables, variable('FF_TIMESTAMPS', 'true')] }), await jobSettings({ featureFlags: { FF_TIMESTAMPS: false } }), configOff);
    assert.doesNotMatch(configOff.trace, /^\d{4}-/);
  });
});

describe('clean-up after the report', () => {
  it('reports the job before its environment is cleaned up when the caller takes the clean-up', async () => {
    const settings = await jobSettings();
    const shell = new ShellExecutor({ buildsDir: settings.buildsDir });
    let release: () => void = () => {};
    const latch = new Promise<void>((resolve) => (release = resolve));
    let cleanedUp = false;
    const slowCleanup: Executor = {
      name: shell.name,
      features: shell.features,
      async prepare(request) {
        const environment = await shell.prepare(request);
        const wrapped: Environment = Object.assign(Object.create(environment) as Environment, {
          cleanup: async () => {
            await latch;
            await environment.cleanup();
            cleanedUp = true;
          },
        });
        return wrapped;
      },
    };
    const session = new RecordingSession();
    let handed: Promise<void> | undefined;
    const outcome = await run(payload({ steps: script('echo done') }), settings, session, slowCleanup, (cleanup) => (handed = cleanup));
    assert.deepEqual(outcome, { state: 'success' });
    assert.ok(session.outcome, 'the job reported');
    assert.equal(cleanedUp, false, 'runJob resolved while the clean-up still waits');
    assert.ok(handed, 'the clean-up was handed over');
    release();
    await handed;
    assert.equal(cleanedUp, true);
  });
});
