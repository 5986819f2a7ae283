import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DockerExecutor } from '../../src/executors/docker/docker-executor.ts';
import { ImageAwareExecutor } from '../../src/executors/local/image-aware-executor.ts';
import { ShellExecutor } from '../../src/executors/shell/shell-executor.ts';
import { prepareRequest, runCollect } from './conformance.ts';
import { BUSYBOX, dockerReady, skipDocker } from './docker-support.ts';

async function shell(): Promise<ShellExecutor> {
  return new ShellExecutor({ buildsDir: await mkdtemp(path.join(os.tmpdir(), 'gantry-image-aware-')) });
}

describe('image-aware executor (the npm start runner)', () => {
  it('runs a job with an image on the shell, with a warning, while no engine answers', async () => {
    const executor = new ImageAwareExecutor(await shell(), new DockerExecutor({ host: 'unix:///nonexistent/docker.sock', pullPolicy: ['never'] }));
    const lines: string[] = [];
    const target = { executor, shell: 'bash' as const, realShell: true, image: BUSYBOX };
    const environment = await executor.prepare(prepareRequest(target, { log: (line) => lines.push(line) }));
    try {
      assert.equal(environment.info.shared, true, 'a shell environment');
      assert.equal((await runCollect(environment, 'echo on-the-host', 'bash')).output, 'on-the-host\n');
      assert.match(lines.join('\n'), /No Docker engine answers: running on the shell, without the image gantry\/busybox:latest/);
      assert.equal(executor.features.image, false);
    } finally {
      await environment.cleanup();
    }
  });

  it('runs a job with an image in Docker and a job without one on the shell when the engine answers', { skip: skipDocker }, async () => {
    await dockerReady();
    const executor = new ImageAwareExecutor(await shell(), new DockerExecutor({ pullPolicy: ['if-not-present'] }));
    const inDocker = await executor.prepare(prepareRequest({ executor, shell: 'sh', realShell: true, image: BUSYBOX }));
    try {
      assert.equal(inDocker.info.shared, false);
      assert.equal(inDocker.info.image, BUSYBOX);
      assert.equal((await runCollect(inDocker, 'test -f /.dockerenv && echo in-container', 'sh')).output, 'in-container\n');
    } finally {
      await inDocker.cleanup();
    }
    assert.equal(executor.features.image, true);
    const onShell = await executor.prepare(prepareRequest({ executor, shell: 'bash', realShell: true }));
    try {
      assert.equal(onShell.info.shared, true);
    } finally {
      await onShell.cleanup();
    }
  });
});
