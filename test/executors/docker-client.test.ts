import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { dockerOptions } from '../../src/executors/docker/settings.ts';

test('docker hosts: unix and tcp, TLS files read at configuration time, other schemes refused', () => {
  assert.deepEqual(dockerOptions({ host: 'unix:///run/docker.sock' }), { socketPath: '/run/docker.sock' });
  assert.deepEqual(dockerOptions({ host: 'tcp://docker.example:2375' }), { host: 'docker.example', port: 2375, protocol: 'http' });
  const certs = mkdtempSync(path.join(tmpdir(), 'gantry-docker-tls-'));
  try {
    for (const file of ['ca.pem', 'cert.pem', 'key.pem']) writeFileSync(path.join(certs, file), file);
    const options = dockerOptions({ host: 'tcp://docker.example', tlsVerify: true, tlsCertPath: certs });
    assert.equal(options?.protocol, 'https');
    assert.equal(options?.port, 2376);
    assert.equal(String(options?.ca), 'ca.pem');
    rmSync(path.join(certs, 'key.pem'));
    assert.throws(() => dockerOptions({ host: 'tcp://docker.example', tlsCertPath: certs }), /key\.pem/);
  } finally {
    rmSync(certs, { recursive: true, force: true });
  }
  assert.throws(() => dockerOptions({ host: 'ssh://user@docker.example' }), /docker host "ssh:\/\/user@docker.example" is not supported \(use unix:\/\/ or tcp:\/\/\)/);
});
