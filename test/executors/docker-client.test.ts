import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createDockerClient, DOCKERODE_DEFERRED, dockerOptions } from '../../src/executors/docker/settings.ts';
import { deferredModulePath } from '../../src/shared/deferred-modules.ts';

const loadedPackages = (): string[] => Object.keys(createRequire(import.meta.url).cache).map((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules)/.exec(file)?.[1] ?? '');

test('the docker client loads dockerode without ssh2, cpu-features or gRPC', async () => {
  assert.ok(!loadedPackages().includes('dockerode'), 'dockerode must not be loaded before the first client');
  for (const module of DOCKERODE_DEFERRED) {
    const file = deferredModulePath(module);
    assert.ok(file !== undefined && existsSync(file), `${module.file} exists in this release`);
  }
  const client = await createDockerClient({ socketPath: '/nonexistent/docker.sock' });
  assert.equal(typeof client.createContainer, 'function');
  const loaded = loadedPackages();
  assert.ok(loaded.includes('dockerode') && loaded.includes('docker-modem'));
  for (const unreachable of ['ssh2', 'cpu-features', '@grpc/grpc-js', '@grpc/proto-loader', 'protobufjs']) assert.ok(!loaded.includes(unreachable), `${unreachable} is loaded`);
  await assert.rejects(client.ping(), /ENOENT|connect/);
});

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
