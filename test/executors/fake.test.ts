import assert from 'node:assert/strict';
import { it } from 'node:test';
import { FakeExecutor } from '../../src/executors/fake/fake-executor.ts';
import { executorConformance, prepareRequest, runCollect } from './conformance.ts';

executorConformance('fake', { realShell: false }, async () => {
  const executor = new FakeExecutor();
  return {
    executor,
    shell: 'sh',
    realShell: false,
    assertNothingLeft: async ({ jobId }) => assert.ok(!executor.live.has(jobId), `job ${jobId} is still live in the fake executor`),
  };
});

it('fake executor: a handler decides what a script prints and how it ends, and every run is recorded', async () => {
  const executor = new FakeExecutor({
    handler: ({ request }) => {
      request.onOutput(Buffer.from(`ran ${request.stage}\n`));
      return { exitCode: request.stage === 'step_script' ? 5 : 0 };
    },
  });
  const environment = await executor.prepare(prepareRequest({ executor, shell: 'sh', realShell: false }));
  assert.deepEqual(await runCollect(environment, 'anything', 'sh'), { exitCode: 5, output: 'ran step_script\n' });
  assert.deepEqual(executor.runs.map((run) => [run.stage, run.exitCode]), [['step_script', 5]]);
  await environment.cleanup();
});

it('fake executor: a prepare error is the environment failing', async () => {
  const executor = new FakeExecutor({ prepareError: 'no such machine' });
  await assert.rejects(executor.prepare(prepareRequest({ executor, shell: 'sh', realShell: false })), /no such machine/);
});
