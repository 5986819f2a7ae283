import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { withinOrKill } from '../helpers/bounded.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/coordinator');
/** Generous: a loaded machine starts slowly; a coordinator still silent after this never speaks. */
const BOUND_MS = 120_000;

interface Started {
  child: ChildProcessByStdio<null, Readable, Readable>;
  lines: string[];
  url: string;
  token: string;
}

/** Starts `coordinator start` on a free port and waits for its banner. */
async function start(dataDir: string): Promise<Started> {
  const child = spawn(BIN, ['start', '--port', '0', '--data-dir', dataDir], {
    env: { ...process.env, GANTRY_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const printed = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (/watch its pipeline run:\n(.*\n){3}/.test(stdout)) resolve(stdout);
    });
    child.on('exit', (code) => reject(new Error(`coordinator start exited with ${code}: ${stderr}`)));
  });
  const banner = await withinOrKill(child, printed, BOUND_MS, 'coordinator start printing its banner');
  const url = /Gantry is running at (\S+) /.exec(banner)?.[1];
  const token = /personal token (\S+) /.exec(banner)?.[1];
  assert.ok(url && token, banner);
  return { child, lines: banner.trimEnd().split('\n'), url, token };
}

async function stop(started: Started): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => started.child.on('exit', (code) => resolve(code)));
  started.child.kill('SIGTERM');
  return withinOrKill(started.child, exited, BOUND_MS, 'coordinator start exiting after SIGTERM');
}

async function api<T>(started: Started, route: string): Promise<T> {
  const response = await fetch(`${started.url}/api/v4${route}`, { headers: { 'PRIVATE-TOKEN': started.token } });
  assert.equal(response.status, 200, `${route}: ${response.status}`);
  return (await response.json()) as T;
}

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('coordinator start (npm start)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gantry-start-'));
  const workDir = mkdtempSync(path.join(tmpdir(), 'gantry-start-work-'));
  after(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(workDir, { recursive: true, force: true });
  });

  it('registers one local runner, keeps it across restarts and prints the same token again', async () => {
    const first = await start(dataDir);
    const port = Number(new URL(first.url).port);
    const outside = Object.values(networkInterfaces()).flat().find((address) => address?.family === 'IPv4' && !address.internal)?.address;
    assert.ok(outside, 'this machine has a non-loopback IPv4 address to probe');
    assert.equal(await accepts('127.0.0.1', port), true);
    assert.equal(await accepts(outside, port), false, `without --host, start listens on loopback only (not ${outside})`);
    const runners = await api<Array<{ id: number; description: string; runner_type: string }>>(first, '/runners/all');
    assert.deepEqual(runners.map((runner) => [runner.description, runner.runner_type]), [['gantry-local', 'instance_type']]);
    assert.equal(statSync(path.join(dataDir, 'root-token')).mode & 0o777, 0o600);
    assert.equal(statSync(path.join(dataDir, 'runner', 'config.toml')).mode & 0o777, 0o600);
    assert.equal(await stop(first), 0);

    const second = await start(dataDir);
    assert.equal(second.token, first.token);
    const again = await api<Array<{ id: number }>>(second, '/runners/all');
    assert.deepEqual(again.map((runner) => runner.id), runners.map((runner) => runner.id), 'the registered runner is reused');
    assert.equal(await stop(second), 0);
  });

  it('runs the printed recipe: the pushed pipeline succeeds on the local runner', async () => {
    const started = await start(dataDir);
    try {
      const recipe = started.lines.slice(-3).map((line) => line.trim());
      // The last line only waits and shows the pipelines; the test polls instead.
      for (const line of recipe.slice(0, 2)) {
        const run = spawnSync('bash', ['-c', line], { cwd: workDir, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
        assert.equal(run.status, 0, `${line}\n${run.stderr}`);
      }
      let pipelines: Array<{ id: number; status: string }> = [];
      for (let attempt = 0; attempt < 300; attempt++) {
        pipelines = await api(started, '/projects/root%2Fdemo/pipelines');
        if (pipelines[0] && ['success', 'failed', 'canceled'].includes(pipelines[0].status)) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(pipelines[0]?.status, 'success', JSON.stringify(pipelines));
      const jobs = await api<Array<{ id: number }>>(started, `/projects/root%2Fdemo/pipelines/${pipelines[0]!.id}/jobs`);
      const trace = await fetch(`${started.url}/api/v4/projects/root%2Fdemo/jobs/${jobs[0]!.id}/trace`, { headers: { 'PRIVATE-TOKEN': started.token } });
      assert.match(await trace.text(), /hello from gantry/);
    } finally {
      await stop(started);
    }
  });
});
