/**
 * Runner token rotation end to end, our runner against our coordinator: a runner created with
 * `POST /user/runners` whose token the coordinator lets expire within seconds gets a new one
 * through `POST /runners/reset_authentication_token` once 75 % of the lifetime has passed,
 * writes it to config.toml (comments and other entries kept), keeps taking jobs with it after
 * the old one expired, and never logs either token. A refused reset is tried again.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FakeExecutor } from '../../src/executors/fake/fake-executor.ts';
import { parseRunnerConfig } from '../../src/runner/config/config.ts';
import { RunnerService } from '../../src/runner/daemon/service.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { startRunnerJobsFixture, type RunnerJobsFixture } from '../helpers/runner-jobs.ts';
import { capturingLogger, type LogLine } from './observe.ts';

/** How long the coordinator lets the first token live: rotation comes after 3 s of it. */
const LIFETIME_MS = 4_000;
const tomlDate = (ms: number) => new Date(ms).toISOString();

describe('runner token rotation against the coordinator', () => {
  let fixture: RunnerJobsFixture;
  let dir: string;
  let service: RunnerService | null = null;
  before(async () => {
    fixture = await startRunnerJobsFixture({ jobRequestLongPollSeconds: 0 });
    dir = await mkdtemp(path.join(os.tmpdir(), 'gantry-token-rotation-'));
    const settings = await fixture.gantry.api('PUT', '/application/settings', { body: { runner_token_expiration_interval: 7200 } });
    assert.equal(settings.status, 200, settings.text);
  });
  after(async () => {
    await service?.abort('test over', 5_000);
    await fixture.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A runner made as GitLab 16+ documents; the coordinator then shortens its token's life to `lifetimeMs` from now. */
  const shortLivedRunner = async (description: string, lifetimeMs: number) => {
    const created = await fixture.gantry.api('POST', '/user/runners', { body: { runner_type: 'instance_type', description } });
    assert.equal(created.status, 201, created.text);
    const token = String(created.json.token);
    const obtainedAt = Math.floor(Date.now() / 1000) * 1000;
    const expiresAt = obtainedAt + lifetimeMs;
    await fixture.gantry.coordinator.context.stores.runners.resetToken(Number(created.json.id), token, tomlDate(obtainedAt), tomlDate(expiresAt));
    return { id: Number(created.json.id), token, obtainedAt, expiresAt };
  };

  const start = async (file: string, text: string, retryMs?: { min: number; max: number }) => {
    await writeFile(file, text, { mode: 0o600 });
    const captured = capturingLogger('debug');
    service = new RunnerService({
      config: parseRunnerConfig(text, file).config,
      configFile: file,
      configText: text,
      logger: captured.logger,
      workingDirectory: dir,
      executorFor: () => new FakeExecutor({ handler: () => ({ exitCode: 0 }) }),
      traceUpdateInterval: 0.05,
      watchTimings: { debounceMs: 50, pollMs: 200 },
      timings: { checkIntervalMs: 100, minBackoffMs: 50, maxBackoffMs: 200 },
      tokenRotation: retryMs ? { retryMs } : undefined,
    });
    await service.start();
    return captured.lines;
  };

  const verify = async (token: string) => (await fixture.gantry.coordinator.app.inject({ method: 'POST', url: '/api/v4/runners/verify', payload: { token } })).statusCode;

  it('resets the token at 75 % of its life, saves it in place, and runs jobs with it after the old one expired', async () => {
    const runner = await shortLivedRunner('rotating', LIFETIME_MS);
    const file = path.join(dir, 'config.toml');
    const text = [
      '# kept: a comment above everything',
      'concurrent = 1',
      'check_interval = 0',
      '',
      '[[runners]]',
      '  name = "rotating"  # kept too',
      `  url = "${fixture.baseUrl}"`,
      `  id = ${runner.id}`,
      `  token = "${runner.token}"`,
      `  token_obtained_at = ${tomlDate(runner.obtainedAt)}`,
      `  token_expires_at = ${tomlDate(runner.expiresAt)}`,
      '  executor = "shell"',
      `  clone_url = "${fixture.baseUrl}"`,
      '',
    ].join('\n');
    const lines = await start(file, text);

    await waitUntil(async () => !(await readFile(file, 'utf8')).includes(runner.token), 'the new token in config.toml', { timeoutMs: 20_000 });
    const rotatedAt = Date.now();
    assert.ok(rotatedAt >= runner.obtainedAt + 0.75 * LIFETIME_MS - 1_000, `reset ${rotatedAt - runner.obtainedAt} ms into a ${LIFETIME_MS} ms life: not before 75 %`);
    const written = await readFile(file, 'utf8');
    const entry = parseRunnerConfig(written, file).config.runners[0]!;
    assert.match(entry.token, /^glrt-/);
    assert.notEqual(entry.token, runner.token);
    assert.match(written, /^# kept: a comment above everything$/m);
    assert.match(written, /^ {2}name = "rotating" {2}# kept too$/m);
    assert.match(written, new RegExp(`^ {2}token = "${entry.token}"$`, 'm'));

    const record = await fixture.gantry.coordinator.context.stores.runners.findById(runner.id);
    assert.ok(record?.token_expires_at, 'the coordinator gave the new token an expiry');
    assert.equal(Date.parse(entry.tokenExpiresAt!), Date.parse(record.token_expires_at), 'token_expires_at is the coordinator\'s');
    assert.ok(Math.abs(Date.parse(record.token_expires_at) - Date.now() - 7_200_000) < 60_000, 'the new token lives as the setting says (2 hours)');
    assert.ok(Math.abs(Date.parse(entry.tokenObtainedAt!) - rotatedAt) < 5_000, 'token_obtained_at is when it was reset');
    assert.equal(await verify(runner.token), 403, 'the old token no longer works');
    assert.equal(await verify(entry.token), 200, 'the new token does');

    // Past the old token's expiry: jobs are still taken, with the new token.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, runner.expiresAt + 200 - Date.now())));
    const project = await fixture.project('rotation-jobs');
    const ciFile = await fixture.gantry.api('POST', `/projects/${project.id}/repository/files/.gitlab-ci.yml`, {
      body: { branch: 'main', content: 'after-rotation:\n  script: echo ok\n', commit_message: 'CI' },
    });
    assert.equal(ciFile.status, 201, ciFile.text);
    const created = await fixture.gantry.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main' } });
    assert.equal(created.status, 201, created.text);
    const pipeline = async () => (await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${String(created.json.id)}/jobs`)).list;
    await waitUntil(async () => (await pipeline())[0]?.status === 'success', 'the job run after the rotation', { timeoutMs: 20_000 });
    assert.equal(((await pipeline())[0]!.runner as { id: number }).id, runner.id);

    assert.ok(lines.some((line) => line.msg === 'runner token reset and saved to the config file'), 'the reset is logged');
    const logged = JSON.stringify(lines);
    assert.ok(!logged.includes(runner.token) && !logged.includes(entry.token), 'neither token is in the log');
    assert.equal(service!.daemon.workers.length, 1, 'the file written by the rotation did not restart the entry');
    await service!.stop();
    service = null;
  });

  it('a refused reset is logged and tried again after a back-off; the runner keeps its token meanwhile', async () => {
    const runner = await shortLivedRunner('refused', 60_000);
    const file = path.join(dir, 'refused.toml');
    // token_obtained_at is missing: the lifetime is unknown, so the token is reset at once.
    const text = `concurrent = 1\n[[runners]]\n  name = "refused"\n  url = "${fixture.baseUrl}"\n  token = "${runner.token}"\n  token_expires_at = ${tomlDate(runner.expiresAt)}\n  executor = "shell"\n`;
    // Another host reset it first: this one's token is refused.
    await fixture.gantry.coordinator.context.stores.runners.resetToken(runner.id, `${runner.token}-elsewhere`, tomlDate(Date.now()), tomlDate(runner.expiresAt));
    const lines: LogLine[] = await start(file, text, { min: 100, max: 400 });
    const refusals = () => lines.filter((line) => line.msg.startsWith('resetting the runner token... forbidden'));
    await waitUntil(() => refusals().length >= 3, 'three refused resets', { timeoutMs: 20_000 });
    assert.deepEqual(refusals().slice(0, 3).map((line) => line.retryInMs), [100, 200, 400], 'the back-off doubles');
    assert.equal(await readFile(file, 'utf8'), text, 'config.toml is left alone');
    assert.ok(!JSON.stringify(lines).includes(runner.token), 'the token is not in the log');
    await service!.stop();
    service = null;
  });
});
