import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { ShellExecutor } from '../../src/executors/shell/shell-executor.ts';
import { executorConformance, prepareRequest, runCollect } from './conformance.ts';

for (const shell of ['bash', 'sh'] as const) {
  executorConformance(`shell (${shell})`, { realShell: true }, async () => ({
    executor: new ShellExecutor({ buildsDir: await mkdtemp(path.join(os.tmpdir(), 'gantry-shell-')) }),
    shell,
    realShell: true,
  }));
}

it('shell executor: builds live under <builds_dir>/<short token>/<concurrent project id>/<namespace>/<project>', async () => {
  const buildsDir = await mkdtemp(path.join(os.tmpdir(), 'gantry-shell-'));
  const executor = new ShellExecutor({ buildsDir });
  const target = { executor, shell: 'bash' as const, realShell: true };
  const environment = await executor.prepare(prepareRequest(target, { shortToken: 'abcdefgh', concurrentProjectId: 2, projectPath: 'ns/proj' }));
  assert.equal(environment.info.projectDir, path.join(buildsDir, 'abcdefgh', '2', 'ns', 'proj'));
  assert.equal(environment.info.hostProjectDir, environment.info.projectDir);
  assert.equal(environment.info.shared, true);
});

it('shell executor: no login shell, so profile files do not run', async () => {
  const home = await mkdtemp(path.join(os.tmpdir(), 'gantry-home-'));
  const { writeFile } = await import('node:fs/promises');
  await writeFile(path.join(home, '.bashrc'), 'echo BASHRC-RAN\n');
  await writeFile(path.join(home, '.bash_profile'), 'echo PROFILE-RAN\n');
  const executor = new ShellExecutor({ buildsDir: await mkdtemp(path.join(os.tmpdir(), 'gantry-shell-')) });
  const environment = await executor.prepare(prepareRequest({ executor, shell: 'bash', realShell: true }));
  const previous = process.env.HOME;
  process.env.HOME = home;
  try {
    const result = await runCollect(environment, 'echo body', 'bash');
    assert.equal(result.output, 'body\n');
  } finally {
    process.env.HOME = previous;
  }
});

it('shell executor: an abort kills the whole process group, grandchildren included', async () => {
  const executor = new ShellExecutor({ buildsDir: await mkdtemp(path.join(os.tmpdir(), 'gantry-shell-')) });
  const environment = await executor.prepare(prepareRequest({ executor, shell: 'bash', realShell: true }));
  const marker = `gantry-grandchild-${process.pid}-${Date.now()}`;
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 400);
  await runCollect(environment, `bash -c 'exec -a ${marker} sleep 60' &\nwait`, 'bash', controller.signal);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const { execa } = await import('execa');
  const listed = await execa('ps', ['-eo', 'args'], { reject: false });
  assert.ok(!listed.stdout.includes(marker), 'the grandchild still runs');
});
