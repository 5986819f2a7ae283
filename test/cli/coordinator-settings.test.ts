/**
 * What `coordinator serve` and `start` take from their config file for several coordinators:
 * the instance timings (heartbeat, stale-after, upkeep), validated with one line naming the key.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { resolveSettings } from '../../src/cli/coordinator-settings.ts';

describe('instance timings in the [coordinator] table', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gantry-instance-settings-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let count = 0;
  const withFile = (body: string) => {
    count += 1;
    const file = path.join(dir, `config-${count}.toml`);
    writeFileSync(file, `[coordinator]\n${body}`);
    return file;
  };
  const settingsOf = (body: string) => resolveSettings({ config: withFile(body) }, {}, '127.0.0.1');

  it('passes the three intervals on as the instances option', () => {
    const settings = settingsOf('instance_heartbeat_interval_ms = 1000\ninstance_stale_after_ms = 4000\ninstance_upkeep_interval_ms = 1500\n');
    assert.deepEqual(settings.instances, { heartbeatIntervalMs: 1000, staleAfterMs: 4000, upkeepIntervalMs: 1500 });
    assert.deepEqual(settingsOf('port = 8081\n').instances, { heartbeatIntervalMs: undefined, staleAfterMs: undefined, upkeepIntervalMs: undefined }, 'absent: the defaults');
  });

  it('refuses values that are not whole milliseconds a timer can wait, naming the key', () => {
    for (const [body, key] of [
      ['instance_heartbeat_interval_ms = 0', 'instance_heartbeat_interval_ms'],
      ['instance_stale_after_ms = 1.5', 'instance_stale_after_ms'],
      ['instance_upkeep_interval_ms = 2147483648', 'instance_upkeep_interval_ms'],
      ['instance_upkeep_interval_ms = -5', 'instance_upkeep_interval_ms'],
    ] as const) {
      assert.throws(() => settingsOf(`${body}\n`), { message: new RegExp(`coordinator\\.${key} must be a whole number of milliseconds from 1 to 2147483647$`) }, body);
    }
    assert.throws(() => settingsOf('instance_heartbeat_interval_ms = "5s"\n'), { message: /coordinator\.instance_heartbeat_interval_ms must be a number$/ });
  });

  it('refuses a stale-after shorter than two heartbeats, the defaults counting for a key left out', () => {
    assert.throws(() => settingsOf('instance_heartbeat_interval_ms = 1000\ninstance_stale_after_ms = 1999\n'), {
      message: /coordinator\.instance_stale_after_ms \(1999\) must be at least twice coordinator\.instance_heartbeat_interval_ms \(1000\)$/,
    });
    assert.throws(() => settingsOf('instance_heartbeat_interval_ms = 20000\n'), { message: /instance_stale_after_ms \(30000\) must be at least twice coordinator\.instance_heartbeat_interval_ms \(20000\)$/ });
    assert.throws(() => settingsOf('instance_stale_after_ms = 9000\n'), { message: /instance_stale_after_ms \(9000\) must be at least twice coordinator\.instance_heartbeat_interval_ms \(5000\)$/ });
    assert.deepEqual(settingsOf('instance_stale_after_ms = 10000\n').instances?.staleAfterMs, 10000);
  });
});

describe('secret keys', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gantry-secret-key-settings-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'config.toml');
  writeFileSync(file, '[coordinator]\nsecret_keys = ["new-key", "old-key"]\n');

  it('come from GANTRY_SECRET_KEYS (comma-separated) over the secret_keys list of the file', () => {
    assert.deepEqual(resolveSettings({ config: file }, {}, '127.0.0.1').secretKeys, ['new-key', 'old-key']);
    assert.deepEqual(resolveSettings({ config: file }, { GANTRY_SECRET_KEYS: 'env-new, env-old' }, '127.0.0.1').secretKeys, ['env-new', 'env-old']);
    assert.equal(resolveSettings({}, {}, '127.0.0.1').secretKeys, undefined, 'none: the data directory key file');
  });
});
