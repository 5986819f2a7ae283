import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface SpawnRequest {
  file: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** A process group of its own (kill(-pid) stops its children too). */
  detached?: boolean;
  /**
   * Its group is killed (SIGKILL) when this process goes away without waiting for it (exits,
   * crashes or is killed: the helper sees its channel close), like execa's `cleanup`. Needs `detached`.
   */
  killWithParent?: boolean;
  /**
   * One socket is the process's stdin, stdout and stderr (its output one stream, in the order
   * it was written; a shell's, whose stderr joins its stdout anyway): one connection to set up
   * and hand over instead of three. The SpawnedProcess's three streams are then that socket.
   */
  oneStream?: boolean;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A process started by the spawner; its stdio are sockets connected to it (one socket, three times, with `oneStream`). */
export interface SpawnedProcess {
  pid: number;
  stdin: net.Socket;
  stdout: net.Socket;
  stderr: net.Socket;
  /** Resolves when the process has exited (code null and signal null if the helper was lost). */
  exited: Promise<ProcessExit>;
  /** Signals the process (its group when detached) unless it has exited. */
  kill(signal?: NodeJS.Signals): void;
}

/**
 * The helper (CommonJS run by `node -e`): receives the three stdio sockets of a process as
 * IPC handles, starts it with them, reports its pid and exit, and drops its own copies.
 */
const HELPER_SOURCE = `
const { spawn } = require('node:child_process');
const stdio = new Map();
const killWithParent = new Set();
const send = (message) => { if (process.connected) process.send(message); };
process.on('message', (message, handle) => {
  if (message.kind === 'stdio') {
    const sockets = stdio.get(message.id) || [];
    sockets[message.index] = handle;
    stdio.set(message.id, sockets);
    return;
  }
  if (message.kind !== 'spawn') return;
  const sockets = stdio.get(message.id) || [];
  stdio.delete(message.id);
  try {
    const child = spawn(message.file, message.args, { env: message.env, cwd: message.cwd, detached: message.detached, stdio: message.oneStream ? [sockets[0], sockets[0], sockets[0]] : sockets });
    child.once('error', (error) => send({ kind: 'failed', id: message.id, error: String(error && error.message) }));
    if (child.pid !== undefined) send({ kind: 'spawned', id: message.id, pid: child.pid });
    if (message.killWithParent && message.detached && child.pid !== undefined) killWithParent.add(child.pid);
    child.once('exit', (code, signal) => {
      killWithParent.delete(child.pid);
      send({ kind: 'exit', id: message.id, code, signal });
    });
  } catch (error) {
    send({ kind: 'failed', id: message.id, error: String(error && error.message) });
  }
  for (const socket of sockets) if (socket) socket.destroy();
});
process.on('disconnect', () => {
  for (const pid of killWithParent) try { process.kill(-pid, 'SIGKILL'); } catch {}
  process.exit(0);
});
`;

const SOCKET_PREFIX = 'gantry-spawner-';

/**
 * Where the pairing server listens. On Linux an abstract socket (a name starting with NUL):
 * it has no file, so a killed coordinator leaves nothing behind. Elsewhere a file in the
 * temporary directory, removed on close and by the next start when its owner is gone.
 */
function socketAddress(): string {
  const name = `${SOCKET_PREFIX}${process.pid}-${randomBytes(6).toString('hex')}`;
  return process.platform === 'linux' ? `\0${name}` : path.join(tmpdir(), `${name}.sock`);
}

/** Socket files left in the temporary directory by coordinators that were killed (their pid is gone). */
function removeStaleSockets(): void {
  if (process.platform === 'linux') return;
  for (const name of readdirSync(tmpdir())) {
    const match = /^gantry-spawner-(\d+)-[0-9a-f]+\.sock$/.exec(name);
    if (!match) continue;
    try {
      process.kill(Number(match[1]), 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') rmSync(path.join(tmpdir(), name), { force: true });
    }
  }
}

type HelperMessage =
  | { kind: 'spawned'; id: number; pid: number }
  | { kind: 'failed'; id: number; error: string }
  | { kind: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null };

interface Tracked {
  started(pid: number): void;
  /** Before it started: the spawn fails; after: ignored (the exit report follows). */
  failed(error: Error): void;
  exited(exit: ProcessExit): void;
}

/**
 * Starts processes from a small helper process instead of this one. child_process.spawn
 * forks the calling process: for a coordinator of a few hundred MB that costs tens of
 * milliseconds (hundreds on a busy machine) during which its event loop answers nothing.
 * The helper is small, so its forks are cheap, and they block nobody. stdio are Unix
 * socket pairs: this process keeps one end, the process gets the other through the helper.
 */
export class ProcessSpawner {
  private helper: ChildProcess | null = null;
  private server: net.Server | null = null;
  private listening: Promise<void> | null = null;
  private readonly socketPath = socketAddress();
  private readonly tracked = new Map<number, Tracked>();
  private nextId = 1;
  private pairing: Promise<unknown> = Promise.resolve();
  private closed = false;

  /** The helper's process id while it runs (its forks are its children). */
  get helperPid(): number | undefined {
    return this.helper?.connected ? this.helper.pid : undefined;
  }

  async spawn(request: SpawnRequest): Promise<SpawnedProcess> {
    if (this.closed) throw new Error('the process spawner is closed');
    await this.listen();
    const pairs = request.oneStream ? [await this.pair()] : [await this.pair(), await this.pair(), await this.pair()];
    const helper = this.ensureHelper();
    const id = this.nextId++;
    let exitedResolve: (exit: ProcessExit) => void = () => undefined;
    const exited = new Promise<ProcessExit>((resolve) => (exitedResolve = resolve));
    let hasExited = false;
    let hasStarted = false;
    const pid = await new Promise<number>((resolve, reject) => {
      this.tracked.set(id, {
        started: (startedPid) => {
          hasStarted = true;
          resolve(startedPid);
        },
        failed: (error) => {
          if (hasStarted) return;
          this.forget(id);
          reject(error);
        },
        exited: (exit) => {
          this.forget(id);
          hasExited = true;
          exitedResolve(exit);
        },
      });
      // Each send passes one socket's descriptor and closes it here (keepOpen is false).
      pairs.forEach(([, theirs], index) => helper.send({ kind: 'stdio', id, index }, theirs));
      helper.send({
        kind: 'spawn', id, file: request.file, args: request.args, env: request.env, cwd: request.cwd,
        detached: request.detached ?? false, killWithParent: request.killWithParent ?? false, oneStream: request.oneStream ?? false,
      });
      this.holdLoop();
    }).catch((error: unknown) => {
      for (const [ours] of pairs) ours.destroy();
      throw error;
    });
    const [stdin, stdout, stderr] = (request.oneStream ? [pairs[0]![0], pairs[0]![0], pairs[0]![0]] : pairs.map(([ours]) => ours)) as [net.Socket, net.Socket, net.Socket];
    // Nothing is ever written to the process's stdout or stderr from this side (with oneStream, the socket is its stdin too).
    if (!request.oneStream) {
      stdout.end();
      stderr.end();
    }
    const kill = (signal: NodeJS.Signals = 'SIGTERM'): void => {
      if (hasExited) return;
      try {
        process.kill(request.detached ? -pid : pid, signal);
      } catch {
        // already gone
      }
    };
    return { pid, stdin, stdout, stderr, exited, kill };
  }

  /** Stops the helper; processes it started keep running until they end. */
  close(): void {
    this.closed = true;
    this.helper?.disconnect();
    this.helper = null;
    this.server?.close();
    this.server = null;
    if (!this.socketPath.startsWith('\0')) rmSync(this.socketPath, { force: true });
  }

  /**
   * Stops the helper and waits for it to exit (at most `timeoutMs`): a process that exits after
   * this has the helper's CPU time, its forks' included, among its own children's (what `time`
   * and a parent's wait see).
   */
  async closeAndWait(timeoutMs: number): Promise<void> {
    const helper = this.helper;
    this.close();
    if (!helper || helper.exitCode !== null || helper.signalCode !== null) return;
    helper.ref();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      helper.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** While a process is tracked, its helper's messages are awaited: the channel keeps the event loop alive. */
  private holdLoop(): void {
    this.helper?.channel?.ref();
  }

  private forget(id: number): void {
    this.tracked.delete(id);
    if (this.tracked.size === 0) this.helper?.channel?.unref();
  }

  private listen(): Promise<void> {
    this.listening ??= new Promise((resolve, reject) => {
      removeStaleSockets();
      const server = net.createServer({ allowHalfOpen: true });
      server.once('error', reject);
      server.listen(this.socketPath, () => resolve());
      server.unref();
      this.server = server;
    });
    return this.listening;
  }

  /** A connected socket pair [this side, the process's side], made one at a time so accepts match connects. */
  private pair(): Promise<[net.Socket, net.Socket]> {
    const made = this.pairing.then(
      () =>
        new Promise<[net.Socket, net.Socket]>((resolve, reject) => {
          const server = this.server!;
          const accepted = new Promise<net.Socket>((accept) => server.once('connection', accept));
          const ours = net.connect({ path: this.socketPath, allowHalfOpen: true });
          ours.once('error', reject);
          void Promise.all([new Promise((connected) => ours.once('connect', connected)), accepted]).then(([, theirs]) => {
            ours.off('error', reject);
            resolve([ours, theirs]);
          });
        }),
    );
    this.pairing = made.catch(() => undefined);
    return made;
  }

  private ensureHelper(): ChildProcess {
    if (this.helper && this.helper.connected) return this.helper;
    const helper = spawn(process.execPath, ['-e', HELPER_SOURCE], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: { PATH: process.env.PATH } });
    helper.on('message', (message: HelperMessage) => {
      const tracked = this.tracked.get(message.id);
      if (!tracked) return;
      if (message.kind === 'spawned') tracked.started(message.pid);
      else if (message.kind === 'failed') tracked.failed(new Error(message.error));
      else tracked.exited({ code: message.code, signal: message.signal });
    });
    helper.once('exit', () => {
      if (this.helper === helper) this.helper = null;
      // Lost with the helper: processes not started fail, started ones have no exit status.
      for (const tracked of this.tracked.values()) {
        tracked.failed(new Error('the process spawner helper exited'));
        tracked.exited({ code: null, signal: null });
      }
      this.tracked.clear();
    });
    helper.unref();
    helper.channel?.unref();
    this.helper = helper;
    return helper;
  }
}

let shared: ProcessSpawner | undefined;

/**
 * The process's own spawner (git, git http-backend, the shell executor's shells), started on first use and never closed:
 * its helper holds the event loop only while a process it started runs, and exits with this one.
 */
export function sharedSpawner(): ProcessSpawner {
  shared ??= new ProcessSpawner();
  return shared;
}

/** For a command about to exit (`runner exec`): ends the process's own spawner, if it started, and waits for its helper (closeAndWait). */
export async function closeSharedSpawner(timeoutMs = 2_000): Promise<void> {
  const spawner = shared;
  shared = undefined;
  await spawner?.closeAndWait(timeoutMs);
}


export interface CollectedRun extends ProcessExit {
  stdout: Buffer;
  stderr: Buffer;
}

/**
 * Runs a short command from the spawner (the process's own by default) and collects its whole
 * output: for commands whose output is small or needed whole (git plumbing), like execa's
 * buffered mode. `input` is written to its stdin, which is closed either way. A command that
 * cannot be started rejects.
 */
export async function runCollected(request: SpawnRequest & { input?: string }, spawner: ProcessSpawner = sharedSpawner()): Promise<CollectedRun> {
  const child = await spawner.spawn(request);
  const collect = (stream: net.Socket): Promise<Buffer> =>
    new Promise((resolve) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      // A reset socket ends the output like its end does: the exit status tells what happened.
      stream.once('error', () => resolve(Buffer.concat(chunks)));
      stream.once('close', () => resolve(Buffer.concat(chunks)));
    });
  const output = Promise.all([collect(child.stdout), collect(child.stderr)]);
  // A command that exits before reading its whole input closes stdin under the write.
  child.stdin.on('error', () => undefined);
  child.stdin.end(request.input ?? '');
  const [[stdout, stderr], exit] = await Promise.all([output, child.exited]);
  child.stdin.destroy();
  return { ...exit, stdout, stderr };
}
