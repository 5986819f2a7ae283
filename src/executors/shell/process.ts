/**
 * One script in a fresh shell (`bash --noprofile --norc` or `sh`, never a login shell: on
 * these machines a login shell takes seconds), in a process group of its own so that
 * aborting kills the whole tree: SIGTERM to the group, SIGKILL a second later.
 */
import { execa } from '#deps/execa';
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
  let child;
  try {
    child = execa(file, args, {
      cwd: options.cwd,
      env: options.env,
      extendEnv: options.env === undefined,
      input,
      detached: true,
      buffer: false,
      reject: false,
      stdout: 'pipe',
      stderr: 'pipe',
      cleanup: true,
    });
  } catch (error) {
    throw new ExecutorError(`cannot start ${file}: ${error instanceof Error ? error.message : String(error)}`, 'system', { cause: error });
  }
  const pid = child.pid;
  child.stdout?.on('data', (chunk: Buffer) => request.onOutput(chunk));
  child.stderr?.on('data', (chunk: Buffer) => request.onOutput(chunk));

  let killTimer: NodeJS.Timeout | undefined;
  const onAbort = (): void => {
    signalGroup(pid, 'SIGTERM');
    killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
  };
  request.signal.addEventListener('abort', onAbort, { once: true });
  // A background process still holding the output pipe must not keep the stage open.
  child.once('exit', () => signalGroup(pid, 'SIGKILL'));
  try {
    const result = await child;
    if (result.failed && result.exitCode === undefined && result.signal === undefined) {
      throw new ExecutorError(`cannot run ${file}: ${result.shortMessage ?? result.message}`, 'system');
    }
    if (result.exitCode !== undefined) return { exitCode: result.exitCode };
    return { exitCode: 128 + (SIGNAL_NUMBERS[result.signal ?? ''] ?? 1) };
  } finally {
    request.signal.removeEventListener('abort', onAbort);
    if (killTimer) clearTimeout(killTimer);
    // Nothing the script left running in its group outlives the stage.
    signalGroup(pid, 'SIGKILL');
  }
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}
