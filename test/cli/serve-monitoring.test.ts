/**
 * `coordinator serve` and the monitoring allow-list: the `monitoring_ip_whitelist` key of the
 * config file, GANTRY_MONITORING_IP_WHITELIST over it, and one clear line for a bad entry.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { freePort } from '../helpers/serve-process.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/coordinator');

/** Runs `serve --config <file>` until `/-/health` is routed, answers its status, then stops it. */
async function healthStatus(configText: (port: number, dataDir: string) => string, env: Record<string, string> = {}): Promise<number> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gantry-serve-monitoring-'));
  const config = path.join(dataDir, 'config.toml');
  writeFileSync(config, configText(port, dataDir));
  const child = spawn(BIN, ['serve', '--config', config], { env: { ...process.env, GANTRY_LOG_LEVEL: 'warn', ...env }, stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    // Up to a minute: a loaded machine starts slowly.
    for (let attempt = 0; attempt < 600; attempt++) {
      const status = await fetch(`http://127.0.0.1:${port}/-/health`).then((response) => response.status, () => undefined);
      if (status !== undefined) return status;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('coordinator serve did not answer within a minute');
  } finally {
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function failedStart(configText: string): Promise<{ code: number | null; stderr: string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gantry-serve-monitoring-bad-'));
  const config = path.join(dataDir, 'config.toml');
  writeFileSync(config, `[coordinator]\ndata_dir = "${dataDir}"\n${configText}\n`);
  const child = spawn(BIN, ['serve', '--config', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (exit) => resolve(exit)));
  rmSync(dataDir, { recursive: true, force: true });
  return { code, stderr };
}

describe('coordinator serve: the monitoring allow-list', () => {
  it('serves /-/health to loopback by default, to the config file\'s list instead when it has one, and the variable wins over the file', async () => {
    assert.equal(await healthStatus((port, dataDir) => `[coordinator]\nport = ${port}\nhost = "127.0.0.1"\ndata_dir = "${dataDir}"\n`), 200);
    const elsewhere = (port: number, dataDir: string) => `[coordinator]\nport = ${port}\nhost = "127.0.0.1"\ndata_dir = "${dataDir}"\nmonitoring_ip_whitelist = ["10.0.0.0/8"]\n`;
    assert.equal(await healthStatus(elsewhere), 404);
    assert.equal(await healthStatus(elsewhere, { GANTRY_MONITORING_IP_WHITELIST: '10.0.0.0/8, 127.0.0.1' }), 200);
  });

  it('stops with one line for an entry that is not an address or range, or a key that is not a list of strings', async () => {
    const bad = await failedStart('monitoring_ip_whitelist = ["127.0.0.1", "localhost"]');
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, 'coordinator: monitoring_ip_whitelist: "localhost" is not an IP address or CIDR range\n');
    const notList = await failedStart('monitoring_ip_whitelist = "127.0.0.1"');
    assert.equal(notList.code, 1);
    assert.match(notList.stderr, /coordinator\.monitoring_ip_whitelist must be a string array\n$/);
  });
});
