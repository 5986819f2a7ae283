/**
 * One script in a fresh shell (`bash --noprofile --norc` or `sh`, never a login shell: on
 * these machines a login shell takes seconds), in a process group of its own so that
 * aborting kills the whole tree: SIGTERM to the group, SIGKILL a second later.
 * The shell is forked by the process's spawner helper (src/shared/process-spawner.ts), not by
 * this process: a fork of a large Node process (`runner exec` holds a coordinator too) costs
 * far more than the shell's work in short stages, most of it copy-on-write faults afterwards.
 */
import type { Readable } from 'node:stream';
import { sharedSpawner, type SpawnedProcess } from '../../shared/process-spawner.ts';
import { ExecutorError, type RunRequest, type RunResult } from '../types.ts';

const KILL_GRACE_MS = 1000;
const SIGNAL_NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15, SIGPIPE: 13 };

export interface ShellProcessOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
}

export function shellCommand(shell: RunRequest['shell']): [string, string[]] {
  return shell === 'bash' ? ['bash', ['--noprofile', '--norc']] : ['sh', []];
}

export async function runShellScript(request: RunRequest, options: ShellProcessOptions): Promise<RunResult> {
  const [file, args] = shellCommand(request.shell);
  if (request.signal.aborted) return { exitCode: 137 };
  // stderr joins stdout inside the shell, so the trace keeps the order the script wrote in.
  const input = `exec 2>&1\n${request.script}`;
  let child: SpawnedProcess;
  try {
    // killWithParent: nothing of the stage outlives `runner exec` or the runner (execa's `cleanup`).
    // One socket for stdin, stdout and stderr: the script's output is one stream anyway.
    child = await sharedSpawner().spawn({ file, args, cwd: options.cwd, env: options.env ?? process.env, detached: true, killWithParent: true, oneStream: true });
  } catch (error) {
    throw new ExecutorError(`cannot start ${file}: ${error instanceof Error ? error.message : String(error)}`, 'system', { cause: error });
  }
  const { pid } = child;
  // A shell that exits before reading its whole script closes stdin under the write.
  child.stdin.on('error', () => undefined);
  child.stdin.end(input);
  const output = Promise.all([...new Set([child.stdout, child.stderr])].map((stream) => drain(stream, request.onOutput)));

  let killTimer: NodeJS.Timeout | undefined;
  const onAbort = (): void => {
    signalGroup(pid, 'SIGTERM');
    killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
  };
  request.signal.addEventListener('abort', onAbort, { once: true });
  // Aborted while the helper was starting the shell.
  if (request.signal.aborted) onAbort();
  try {
    const exit = await child.exited;
    // A background process still holding the output pipe must not keep the stage open.
    signalGroup(pid, 'SIGKILL');
    await output;
    if (exit.code === null && exit.signal === null) throw new ExecutorError(`cannot run ${file}: the process spawner lost it`, 'system');
    if (exit.code !== null) return { exitCode: exit.code };
    return { exitCode: 128 + (SIGNAL_NUMBERS[exit.signal ?? ''] ?? 1) };
  } finally {
    request.signal.removeEventListener('abort', onAbort);
    if (killTimer) clearTimeout(killTimer);
    // Nothing the script left running in its group outlives the stage.
    signalGroup(pid, 'SIGKILL');
    for (const stream of new Set([child.stdin, child.stdout, child.stderr])) stream.destroy();
  }
}

/** Passes every chunk on until the stream ends; a reset connection ends it too. */
function drain(stream: Readable, onOutput: (chunk: Buffer) => void): Promise<void> {
  return new Promise((resolve) => {
    stream.on('data', (chunk: Buffer) => onOutput(chunk));
    stream.once('error', () => resolve());
    stream.once('close', () => resolve());
  });
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}
