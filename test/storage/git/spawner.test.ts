import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { runCollected } from '../../../src/shared/process-spawner.ts';
import { ProcessSpawner } from '../../../src/storage/git/spawner.ts';
import { within } from '../../helpers/bounded.ts';

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const env = { PATH: process.env.PATH };

describe('process spawner (forks from a helper process)', () => {
  const spawner = new ProcessSpawner();
  after(() => spawner.close());

  it('closeAndWait ends the helper and resolves once it has exited (its forks counted in this process then)', async () => {
    const own = new ProcessSpawner();
    const child = await own.spawn({ file: 'sh', args: ['-c', 'exit 0'], env });
    await child.exited;
    const helper = own.helperPid;
    assert.ok(helper !== undefined);
    await own.closeAndWait(5_000);
    assert.throws(() => process.kill(helper, 0), /ESRCH/, 'the helper is gone');
  });

  it('connects stdin, stdout and stderr and reports the exit code', async () => {
    const child = await spawner.spawn({ file: 'sh', args: ['-c', 'tr a-z A-Z; echo oops >&2; exit 3'], env });
    child.stdin.end('hello spawner\n');
    const [output, errors, exit] = await Promise.all([readAll(child.stdout), readAll(child.stderr), child.exited]);
    assert.equal(output, 'HELLO SPAWNER\n');
    assert.equal(errors, 'oops\n');
    assert.deepEqual(exit, { code: 3, signal: null });
  });

  it('with oneStream, gives the process one socket as stdin, stdout and stderr: its output in the order written', async () => {
    const child = await spawner.spawn({ file: 'sh', args: ['-c', 'read line; echo "out $line"; echo err >&2; echo out again; exit 4'], env, oneStream: true });
    assert.equal(child.stdout, child.stdin);
    assert.equal(child.stderr, child.stdin);
    // The end of stdin does not end the output: the process still writes after reading it.
    child.stdin.end('first\n');
    const [output, exit] = await Promise.all([readAll(child.stdout), child.exited]);
    assert.equal(output, 'out first\nerr\nout again\n');
    assert.deepEqual(exit, { code: 4, signal: null });
  });

  it('keeps the stdio of concurrent processes apart', async () => {
    const outputs = await Promise.all(
      Array.from({ length: 20 }, async (_, index) => {
        const child = await spawner.spawn({ file: 'sh', args: ['-c', `cat; echo ${index}`], env });
        child.stdin.end(`input ${index}\n`);
        return readAll(child.stdout);
      }),
    );
    assert.deepEqual(outputs, Array.from({ length: 20 }, (_, index) => `input ${index}\n${index}\n`));
  });

  it('streams large output with backpressure', async () => {
    const child = await spawner.spawn({ file: 'head', args: ['-c', String(32 * 1024 * 1024), '/dev/zero'], env });
    child.stdin.end();
    let bytes = 0;
    for await (const chunk of child.stdout) bytes += (chunk as Buffer).length;
    assert.equal(bytes, 32 * 1024 * 1024);
    assert.equal((await child.exited).code, 0);
  });

  it('kills a process, and a detached one with its whole group', async () => {
    const single = await spawner.spawn({ file: 'sleep', args: ['300'], env });
    single.kill();
    assert.deepEqual(await within(single.exited, 30_000, 'sleep 300 exiting after kill()'), { code: null, signal: 'SIGTERM' });

    const group = await spawner.spawn({ file: 'sh', args: ['-c', 'sleep 300 & echo $!; wait'], env, detached: true });
    const grandchild = Number((await new Promise<Buffer>((resolve) => group.stdout.once('data', resolve))).toString().trim());
    assert.ok(existsSync(`/proc/${grandchild}`));
    group.kill();
    await within(group.exited, 30_000, 'the detached group exiting after kill()');
    for (let attempt = 0; attempt < 100 && existsSync(`/proc/${grandchild}`); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(existsSync(`/proc/${grandchild}`), false, 'the process group outlived the kill');
  });

  it('rejects a program that cannot be started', async () => {
    await assert.rejects(spawner.spawn({ file: '/nonexistent/program', args: [], env }), /ENOENT/);
    // The spawner still works afterwards.
    const child = await spawner.spawn({ file: 'true', args: [], env });
    assert.equal((await child.exited).code, 0);
  });

  it('refuses to spawn once closed', async () => {
    const closing = new ProcessSpawner();
    const child = await closing.spawn({ file: 'true', args: [], env });
    await child.exited;
    closing.close();
    await assert.rejects(closing.spawn({ file: 'true', args: [], env }), /closed/);
  });
});

describe('process spawner: runCollected', () => {
  const spawner = new ProcessSpawner();
  after(() => spawner.close());

  it('feeds the input and collects both outputs whole with the exit status', async () => {
    // More than a socket buffer of output, on both streams: nothing is lost or reordered.
    const script = 'tr a-z A-Z; i=0; while [ $i -lt 20000 ]; do echo "line $i"; echo "err $i" >&2; i=$((i+1)); done; exit 4';
    const result = await within(runCollected({ file: 'sh', args: ['-c', script], env, input: 'shout\n' }, spawner), 60_000, 'runCollected');
    const lines = result.stdout.toString('utf8').split('\n');
    assert.equal(lines[0], 'SHOUT');
    assert.equal(lines.length, 20_002);
    assert.equal(lines[20_000], 'line 19999');
    assert.equal(result.stderr.toString('utf8').split('\n').length, 20_001);
    assert.equal(result.code, 4);
    assert.equal(result.signal, null);
  });

  it('closes stdin without input and rejects a program that cannot be started', async () => {
    const result = await within(runCollected({ file: 'cat', args: [], env }, spawner), 60_000, 'cat');
    assert.deepEqual([result.code, result.stdout.length], [0, 0]);
    await assert.rejects(runCollected({ file: '/nonexistent/program', args: [], env }, spawner));
  });
});

describe('process spawner: killWithParent', () => {
  const alive = (pid: number): boolean => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSafe(`/proc/${pid}/status`));

  it('kills the group of a process started with it when its owner goes away, and only those', async () => {
    const owner = new ProcessSpawner();
    const doomed = await owner.spawn({ file: 'sleep', args: ['30'], env, detached: true, killWithParent: true });
    const kept = await owner.spawn({ file: 'sleep', args: ['30'], env, detached: true });
    try {
      // close() disconnects the helper, as this process's exit or death would.
      owner.close();
      for (let attempt = 0; attempt < 250 && alive(doomed.pid); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(alive(doomed.pid), false, 'the killWithParent process outlived its owner');
      assert.equal(alive(kept.pid), true, 'a process without killWithParent keeps running');
    } finally {
      for (const pid of [doomed.pid, kept.pid]) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
  });
});

function readFileSafe(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

describe('process spawner sockets', () => {
  it('listens on an abstract socket: no file in the temporary directory, even while running', { skip: process.platform !== 'linux' }, async () => {
    const before = readdirSync(tmpdir()).filter((name) => name.startsWith('gantry-spawner-'));
    const spawner = new ProcessSpawner();
    const child = await spawner.spawn({ file: 'sleep', args: ['0.2'], env });
    const during = readdirSync(tmpdir()).filter((name) => name.startsWith('gantry-spawner-'));
    assert.deepEqual(during, before);
    assert.deepEqual(await child.exited, { code: 0, signal: null });
    spawner.close();
  });
});
