import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DeferredDockerExecutor } from '../../src/executors/docker/deferred.ts';
import { DockerExecutor } from '../../src/executors/docker/docker-executor.ts';
import type { Executor, PrepareRequest } from '../../src/executors/types.ts';

test("a docker entry's executor is imported on first use, once; shell entries never import it", () => {
  const child = fileURLToPath(new URL('../helpers/executor-loading-child.ts', import.meta.url));
  const output = execFileSync(process.execPath, ['--import', 'tsx', child], { encoding: 'utf8', timeout: 60_000 });
  const steps = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as Record<string, string[]>;
  assert.deepEqual(steps.shell, [], 'a shell executor loads nothing of docker');
  assert.deepEqual(steps.dockerCreated, [], 'a docker entry alone does not load the executor yet');
  assert.ok(steps.dockerSwept.includes('executors/docker/docker-executor.ts'), JSON.stringify(steps));
  assert.ok(steps.dockerSwept.some((url) => url.startsWith('dockerode/')), JSON.stringify(steps));
});

test('the deferred docker executor checks its settings at once and loads the real one a single time', async () => {
  assert.throws(() => new DeferredDockerExecutor({ memory: 'lots' }, () => assert.fail('not loaded for bad settings')), /invalid docker memory "lots"/);
  assert.throws(() => new DeferredDockerExecutor({ host: 'ftp://docker.example' }), /docker host "ftp:\/\/docker.example" is not supported/);
  let loads = 0;
  const prepared: number[] = [];
  const real: Executor = {
    name: 'docker',
    features: new DockerExecutor({ host: 'unix:///nonexistent/docker.sock' }).features,
    sweep: async () => 2,
    prepare: async (request) => {
      prepared.push(request.jobId);
      throw new Error('prepared by the real executor');
    },
  };
  const executor = new DeferredDockerExecutor({ memory: '512m' }, async () => (loads++, real));
  assert.equal(loads, 0);
  assert.deepEqual(executor.features, real.features, 'the features the runner announces before loading are the real ones');
  assert.equal(await executor.sweep(), 2);
  await assert.rejects(executor.prepare({ jobId: 7 } as PrepareRequest), /prepared by the real executor/);
  assert.deepEqual(prepared, [7]);
  assert.equal(loads, 1);
});
