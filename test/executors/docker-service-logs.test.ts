/** CI_DEBUG_SERVICES: a service's output followed into the job log, as gitlab-runner's docker executor does. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DockerExecutor } from '../../src/executors/docker/docker-executor.ts';
import { runJob } from '../../src/runner/job/engine.ts';
import { jobSettings, payload, RecordingSession, runnerIdentity, variable } from '../runner/support.ts';
import { prepareRequest, runCollect } from './conformance.ts';
import { BUSYBOX, dockerReady, skipDocker } from './docker-support.ts';

const target = (executor: DockerExecutor) => ({ executor, shell: 'sh' as const, realShell: true, image: BUSYBOX });
// Listening once it has spoken, so that the wait for its port means its first line was written.
const chatty = { name: BUSYBOX, alias: 'chatty', entrypoint: null, ports: [], command: ['sh', '-c', 'echo first-line; echo on-stderr >&2; exec httpd -f -vv -p 7000 -h /tmp'] };

async function executor(): Promise<DockerExecutor> {
  return new DockerExecutor({ pullPolicy: ['if-not-present'], waitForServicesTimeout: 20 }, await dockerReady());
}

describe('docker executor: CI_DEBUG_SERVICES', { skip: skipDocker }, () => {
  it('follows each service\'s stdout and stderr into the log, every line timestamped under [service:<aliases>], while the job runs', async () => {
    const docker = await executor();
    const lines: string[] = [];
    const environment = await docker.prepare(prepareRequest(target(docker), { services: [chatty], serviceVariables: { HEALTHCHECK_TCP_PORT: '7000' }, debugServices: true, log: (line) => lines.push(line) }));
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

  it('is asked for by a job variable read as Go\'s ParseBool (a secret one too), unless the runner has debug_trace_disabled', async () => {
    const run = async (value: string | null, debugTraceDisabled = false) => {
      const session = new RecordingSession();
      const job = payload({
        image: { name: BUSYBOX },
        variables: [variable('GIT_STRATEGY', 'none'), variable('HEALTHCHECK_TCP_PORT', '7000'), ...(value === null ? [] : [variable('CI_DEBUG_SERVICES', value, { public: false })])],
        services: [chatty],
      });
      await runJob({ payload: job, executor: await executor(), session, runner: runnerIdentity, settings: await jobSettings({ debugTraceDisabled }) });
      return session.trace.includes('[service:gantry__busybox-gantry-busybox-chatty]') && session.trace.includes('first-line');
    };
    assert.equal(await run('TRUE'), true);
    assert.equal(await run('TRUE', true), false);
    assert.equal(await run('f'), false);
    assert.equal(await run(null), false);
  });
});
