/** The port the docker executor waits on for a service: its HEALTHCHECK_TCP_PORT first, as gitlab-runner reads it from the container's environment. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type Docker from 'dockerode';
import { DockerExecutor } from '../../src/executors/docker/docker-executor.ts';
import { healthCheckPort } from '../../src/executors/docker/services.ts';
import { prepareRequest, runCollect } from './conformance.ts';
import { BUSYBOX, dockerReady, skipDocker } from './docker-support.ts';

const exposing = (ports: string[]) => ({ Config: { ExposedPorts: Object.fromEntries(ports.map((port) => [port, {}])) } }) as unknown as Docker.ImageInspectInfo;
const service = { name: BUSYBOX, alias: 'web', entrypoint: null, ports: [], command: null };

describe('service health-check port', () => {
  it('is HEALTHCHECK_TCP_PORT (its key in any case) over the exposed ports, and an error when it is not a number', () => {
    assert.equal(healthCheckPort(service, exposing(['5432/tcp', '80/tcp']), []), 80);
    assert.equal(healthCheckPort(service, exposing(['80/tcp']), ['OTHER=1', 'HEALTHCHECK_TCP_PORT=5432']), 5432);
    assert.equal(healthCheckPort(service, exposing([]), ['healthcheck_tcp_port=8080']), 8080);
    assert.equal(healthCheckPort(service, exposing([]), []), null);
    assert.throws(() => healthCheckPort(service, exposing(['80/tcp']), ['HEALTHCHECK_TCP_PORT=http']), /invalid health check tcp port: http/);
  });
});

describe('docker executor: services with HEALTHCHECK_TCP_PORT', { skip: skipDocker }, () => {
  const target = (executor: DockerExecutor) => ({ executor, shell: 'sh' as const, realShell: true, image: BUSYBOX });

  it('waits for the port a service variable names (the image exposes none) before the script, and warns about one that is not a port', async () => {
    const docker = await dockerReady();
    const executor = new DockerExecutor({ pullPolicy: ['if-not-present'], waitForServicesTimeout: 20 }, docker);
    const lines: string[] = [];
    const request = prepareRequest(target(executor), {
      services: [{
        ...service,
        variables: [{ key: 'HEALTHCHECK_TCP_PORT', value: '8080' }],
        command: ['sh', '-c', 'sleep 3; mkdir -p /www && echo up > /www/index.html && exec httpd -f -p 8080 -h /www'],
      }],
      serviceVariables: { HEALTHCHECK_TCP_PORT: '8080' },
      log: (line) => lines.push(line),
    });
    const environment = await executor.prepare(request);
    try {
      assert.ok(lines.includes('Waiting for services to be up and running (timeout 20 seconds)...'), lines.join('\n'));
      assert.ok(!lines.some((line) => line.includes('probably didn')), lines.join('\n'));
      // Once: no retry loop, the wait saw to it.
      const result = await runCollect(environment, 'wget -qO- http://web:8080/index.html', 'sh');
      assert.deepEqual(result, { exitCode: 0, output: 'up\n' });
    } finally {
      await environment.cleanup();
    }

    const warned: string[] = [];
    const invalid = await executor.prepare(prepareRequest(target(executor), {
      services: [{ ...service, command: ['sh', '-c', 'echo bad-port-service; sleep 60'] }],
      serviceVariables: { HEALTHCHECK_TCP_PORT: 'db' },
      log: (line) => warned.push(line),
    }));
    await invalid.cleanup();
    assert.ok(warned.includes(`*** WARNING: Service ${BUSYBOX} probably didn't start properly.`), warned.join('\n'));
    assert.ok(warned.includes('Health check error: invalid health check tcp port: db'), warned.join('\n'));
  });
});
