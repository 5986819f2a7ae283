/** CI_DEBUG_SERVICES: a service's output followed into the job log, as gitlab-runner's docker executor does. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DockerExecutor } from '../../src/executors/docker/docker-executor.ts';
import { prepareRequest, runCollect } from './conformance.ts';
import { BUSYBOX, dockerReady, skipDocker } from './docker-support.ts';

const target = (executor: DockerExecutor) => ({ executor, shell: 'sh' as const, realShell: true, image: BUSYBOX });
// Listening once it has spoken, so that the wait for its port means its first line was written.
const chatty = { name: BUSYBOX, alias: 'chatty', entrypoint: null, ports: [], command: ['sh', '-c', 'echo first-line; echo on-stderr >&2; exec httpd -f -vv -p 7000 -h /tmp'] };

async function prepared(variables: Record<string, string>) {
  const docker = await dockerReady();
  const executor = new DockerExecutor({ pullPolicy: ['if-not-present'], waitForServicesTimeout: 20 }, docker);
  const lines: string[] = [];
  const environment = await executor.prepare(prepareRequest(target(executor), {
    services: [chatty],
    serviceVariables: { HEALTHCHECK_TCP_PORT: '7000', ...variables },
    log: (line) => lines.push(line),
  }));
  return { environment, lines };
}

describe('docker executor: CI_DEBUG_SERVICES', { skip: skipDocker }, () => {
  it('follows each service\'s stdout and stderr into the log, every line timestamped under [service:<aliases>], while the job runs', async () => {
    const { environment, lines } = await prepared({ CI_DEBUG_SERVICES: 'true' });
    try {
      // Later output too: the service logs the request the script sends it.
      await runCollect(environment, 'wget -qO- http://chatty:7000/later-line || true', 'sh');
      for (let waited = 0; waited < 50 && !lines.some((line) => line.includes('later-line')); waited++) await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await environment.cleanup();
    }
    const serviceLines = lines.filter((line) => line.includes('[service:'));
    const shape = (text: string) => new RegExp(`^\\x1b\\[0;90m\\[service:gantry__busybox-gantry-busybox-chatty\\] \\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z ${text}\\x1b\\[0;m$`);
    for (const text of ['first-line', 'on-stderr']) assert.ok(serviceLines.some((line) => shape(text).test(line)), serviceLines.join('\n'));
    assert.ok(serviceLines.some((line) => line.includes('later-line')), serviceLines.join('\n'));
  });

  it('shows nothing of a service without it (or with a value Go\'s ParseBool reads as false)', async () => {
    for (const variables of [{}, { CI_DEBUG_SERVICES: 'false' }] as Record<string, string>[]) {
      const { environment, lines } = await prepared(variables);
      await environment.cleanup();
      assert.ok(!lines.some((line) => line.includes('[service:') || line.includes('first-line')), lines.join('\n'));
    }
  });
});
