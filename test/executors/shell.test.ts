import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { ShellExecutor } from '../../src/executors/shell/shell-executor.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { executorConformance, prepareRequest, runCollect } from './conformance.ts';

/** The command lines of the processes running now. */
async function processCommandLines(): Promise<string[]> {
  const { execa } = await import('#deps/execa');
  return (await execa('ps', ['-eo', 'args'])).stdout.split('\n').map((line) => line.trim());
}

for (const shell of ['bash', 'sh'] as const) {
  executorConformance(`shell (${shell})`, { realShell: true }, async () => ({
    executor: new ShellExecutor({ buildsDir: await mkdtemp(path.join(os.tmpdir(), 'gantry-shell-')) }),
    shell,
    realShell: true,
    assertNothingLeft: async ({ environment, marker }) => {
      assert.ok(marker, 'a real shell leaves a background process to look for');
      try {
        await waitUntil(async () => !(await processCommandLines()).includes(marker), `"${marker}", started by the job, to be gone after its cleanup`, { timeoutMs: 5_000 });
      } finally {
        await killByCommandLine(marker);
      }
      // Builds are shared between jobs (the next one fetches into them): cleanup keeps them.
      assert.equal(environment.info.shared, true);
      assert.ok(existsSync(environment.info.buildsDir), 'the shared builds directory is kept');
    },
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
  try {
    // The grandchild holds the output for 60 s: the run ends before only if the abort killed it.
    await runCollect(environment, `bash -c 'exec -a ${marker} sleep 60' &\nwait`, 'bash', controller.signal, 15_000);
    await waitUntil(async () => !(await processCommandLines()).some((line) => line.includes(marker)), 'the grandchild to be gone after the abort', { timeoutMs: 5_000 });
  } finally {
    await killByCommandLine(marker);
  }
});

/** Kills, by pid, what a failed run left behind, so that a failure does not hold the test file open. */
async function killByCommandLine(marker: string): Promise<void> {
  const { execa } = await import('#deps/execa');
  for (const line of (await execa('ps', ['-eo', 'pid=,args='])).stdout.split('\n')) {
    const [pid, ...args] = line.trim().split(/\s+/);
    if (args.join(' ') === marker || args.join(' ').startsWith(`${marker} `)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
}
