import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { within, withinOrKill } from './bounded.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/coordinator');

/**
 * A port free now for a process to listen on later. Taken at random below the kernel's
 * ephemeral range (32768 and up here): a port the kernel handed out with `listen(0)` could be
 * given again, meanwhile, to any outgoing connection of a test running beside this one.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await bindable(port)) return port;
  }
  throw new Error('no free port between 20000 and 32000');
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** `coordinator serve` as a child process group, for tests that kill it. */
export interface ServeProcess {
  baseUrl: string;
  /** What the process wrote to stdout and stderr so far (the JSON log). */
  output(): string;
  /** SIGKILL to the whole process group (the coordinator and the git processes it started). */
  kill(): Promise<void>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

export async function startServe(options: { dataDir: string; port: number; token: string; env?: Record<string, string>; args?: string[] }): Promise<ServeProcess> {
  const child: ChildProcess = spawn(BIN, ['serve', '--port', String(options.port), '--host', '127.0.0.1', '--data-dir', options.dataDir, ...(options.args ?? [])], {
    env: { ...process.env, GANTRY_ROOT_TOKEN: options.token, GANTRY_LOG_LEVEL: 'info', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const baseUrl = `http://127.0.0.1:${options.port}`;
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await fetch(`${baseUrl}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': options.token } });
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || attempt > 300) throw new Error(`coordinator did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    baseUrl,
    output: () => output,
    async kill() {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
      await within(exited, 60_000, 'the coordinator exiting after SIGKILL');
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await withinOrKill(child, exited, 60_000, 'the coordinator exiting after SIGTERM', { group: true });
    },
  };
}
