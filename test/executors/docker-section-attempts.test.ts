/** EXECUTOR_JOB_SECTION_ATTEMPTS: a stage whose container is removed under it runs again in a new one, as gitlab-runner's docker executor retries `No such container`. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DockerExecutor } from '../../src/executors/docker/docker-executor.ts';
import { LABEL_JOB, LABEL_KIND } from '../../src/executors/docker/labels.ts';
import { ExecutorError } from '../../src/executors/types.ts';
import { executorSectionAttempts } from '../../src/runner/job/attempts.ts';
import { prepareRequest } from './conformance.ts';
import { BUSYBOX, dockerReady, skipDocker } from './docker-support.ts';

// The first run marks the build volume and waits; the second finds the mark.
const script = 'if [ -f /builds/ran-once ]; then echo second-run; else touch /builds/ran-once; echo first-run; sleep 60; fi\n';

async function runRemovingTheFirstContainer(sectionAttempts: number) {
  const docker = await dockerReady();
  const executor = new DockerExecutor({ pullPolicy: ['if-not-present'] }, docker);
  const lines: string[] = [];
  const request = prepareRequest({ executor, shell: 'sh', realShell: true, image: BUSYBOX }, { sectionAttempts, log: (line, level) => lines.push(`${level ?? 'info'}: ${line}`) });
  const environment = await executor.prepare(request);
  let output = '';
  try {
    // Settled into a value at once: its rejection is the result the test looks at.
    const running = environment
      .run({ stage: 'step_script', kind: 'user', shell: 'sh', script, onOutput: (chunk) => void (output += chunk.toString()), signal: new AbortController().signal })
      .then((value) => value, (error: unknown) => error);
    for (let waited = 0; waited < 200 && !output.includes('first-run'); waited++) await new Promise((resolve) => setTimeout(resolve, 100));
    const filters = JSON.stringify({ label: [`${LABEL_JOB}=${request.jobId}`, `${LABEL_KIND}=build`], status: ['running'] });
    const [first] = await docker.listContainers({ filters });
    assert.ok(first, `the first run's container is running\n${output}`);
    await docker.getContainer(first.Id).remove({ force: true });
    const result = await running;
    return { result, output, lines, removed: first.Id };
  } finally {
    await environment.cleanup();
  }
}

describe('EXECUTOR_JOB_SECTION_ATTEMPTS', () => {
  it('is 1 unless a number from 1 to 10, one outside warned about', () => {
    const warnings: string[] = [];
    assert.deepEqual(['3', '', 'x', '0', '11'].map((value) => executorSectionAttempts(value, (line) => warnings.push(line))), [3, 1, 1, 1, 1]);
    assert.deepEqual(warnings, Array(2).fill('EXECUTOR_JOB_SECTION_ATTEMPTS: number of attempts out of the range [1, 10], using default 1'));
  });
});

describe('docker executor: a stage container removed under the script', { skip: skipDocker }, () => {
  it('runs the stage again in a new container while the attempts last', async () => {
    const { result, output, lines, removed } = await runRemovingTheFirstContainer(2);
    assert.deepEqual(result, { exitCode: 0 }, output);
    assert.ok(output.includes('second-run'), output);
    assert.deepEqual(lines.slice(-2), [`error: Container "${removed}" not found or removed. Will retry...`, 'info: Retrying step_script']);
  });

  it('is a system failure with one attempt (the default)', async () => {
    const { result, lines, removed } = await runRemovingTheFirstContainer(1);
    assert.ok(result instanceof ExecutorError && result.kind === 'system', String(result));
    assert.equal(lines.at(-1), `error: Container "${removed}" not found or removed. Will retry...`);
  });
});
