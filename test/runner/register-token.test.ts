/**
 * Gantry's runner set up as gitlab-runner 16+ documents it, against our coordinator: the
 * runner is created with `POST /user/runners`, then `runner register --token glrt-…`
 * verifies the token with this host's system id (kept next to config.toml), writes the
 * runner's id and token dates, and its job requests report the same host as the runner's
 * one manager. Registration-token registration keeps `--paused` and `--maintenance-note`.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runRegister } from '../../src/cli/commands/runner-register.ts';
import type { CommandIo } from '../../src/cli/commands/runner-config.ts';
import { parseRunnerConfig } from '../../src/runner/config/config.ts';
import { loadSystemId, systemIdFile } from '../../src/runner/config/system-id.ts';
import { RunnerService } from '../../src/runner/daemon/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { freePort } from '../helpers/serve-process.ts';

describe('runner register --token glrt-… against the coordinator', () => {
  let test: TestCoordinator;
  let url: string;
  let dir: string;
  const io = (): CommandIo => ({ stdout: () => undefined, stderr: () => undefined, env: {}, cwd: dir });

  before(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    test = await startTestCoordinator({ externalUrl: url });
    await test.coordinator.app.listen({ port, host: '127.0.0.1' });
    dir = await mkdtemp(path.join(os.tmpdir(), 'gantry-register-token-'));
  });
  after(async () => {
    await test.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('verifies with a kept system id, writes id and token dates, and job requests report the same manager', async () => {
    const created = await test.api('POST', '/user/runners', { body: { runner_type: 'instance_type', description: 'made-in-the-ui' } });
    assert.equal(created.status, 201, created.text);
    const token = String(created.json.token);
    assert.match(token, /^glrt-/);

    const file = path.join(dir, 'config.toml');
    assert.equal(await runRegister({ config: file, nonInteractive: true, url, token, executor: 'shell', name: 'host-a' }, io()), 0);
    const { config } = parseRunnerConfig(await readFile(file, 'utf8'));
    const entry = config.runners[0];
    assert.equal(entry.token, token);
    assert.equal(entry.id, Number(created.json.id));
    assert.ok(entry.tokenObtainedAt && !Number.isNaN(Date.parse(entry.tokenObtainedAt)), 'token_obtained_at is written');
    const systemId = (await readFile(systemIdFile(file), 'utf8')).trim();
    assert.match(systemId, /^[sr]_[0-9a-zA-Z]{12}$/);
    assert.equal(await loadSystemId(file), systemId, 'the system id is kept across starts');

    const managers = async () => (await test.api('GET', `/runners/${String(created.json.id)}/managers`)).list;
    assert.deepEqual((await managers()).map((manager) => manager.system_id), [systemId]);

    const service = new RunnerService({ config, logger: silentLogger(), workingDirectory: dir, systemId: await loadSystemId(file) });
    await service.start();
    try {
      const deadline = Date.now() + 15_000;
      while ((await managers())[0]?.version === null) {
        assert.ok(Date.now() < deadline, 'the running runner never reported its version through its manager');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await service.abort('test finished', 5_000).catch(() => undefined);
      await service.close();
    }
    const [manager] = await managers();
    assert.equal((await managers()).length, 1, 'job requests report the host registered, not a new one');
    assert.equal(manager.system_id, systemId);
    assert.equal(manager.platform, process.platform);
  });

  it('registers paused with a maintenance note through a registration token', async () => {
    const settings = await test.api('GET', '/application/settings');
    const file = path.join(dir, 'paused.toml');
    const code = await runRegister(
      { config: file, nonInteractive: true, url, registrationToken: String(settings.json.runners_registration_token), executor: 'shell', name: 'paused-one', paused: true, maintenanceNote: 'disk is small' },
      io(),
    );
    assert.equal(code, 0);
    const runners = (await test.api('GET', '/runners/all')).list;
    const runner = runners.find((candidate) => candidate.description === 'paused-one');
    assert.ok(runner, 'the runner was registered');
    assert.equal(runner.paused, true);
    const detail = await test.api('GET', `/runners/${String(runner.id)}`);
    assert.equal(detail.json.maintenance_note, 'disk is small');
  });
});
