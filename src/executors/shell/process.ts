/**
 * One script in a fresh shell (`bash --noprofile --norc` or `sh`, never a login shell: on
 * these machines a login shell takes seconds), in a process group of its own so that
 * aborting kills the whole tree: SIGTERM to the group, SIGKILL a second later.
 * node:child_process directly (not execa): the runner stays small while it idles.
 */
import { spawn, type ChildProcess } from 'node:child_process';
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

/** Process groups of running scripts: none outlives the runner process. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;
function track(pid: number): void {
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of liveGroups) signalGroup(group, 'SIGKILL');
  });
}

type Ended = { code: number | null; signal: NodeJS.Signals | null } | { error: Error };

function ended(child: ChildProcess): Promise<Ended> {
  return new Promise((resolve) => {
    child.once('error', (error) => resolve({ error }));
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
}

export async function runShellScript(request: RunRequest, options: ShellProcessOptions): Promise<RunResult> {
  const [file, args] = shellCommand(request.shell);
  if (request.signal.aborted) return { exitCode: 137 };
  // stderr joins stdout inside the shell, so the trace keeps the order the script wrote in.
  const input = `exec 2>&1\n${request.script}`;
  let child: ChildProcess;
  try {
    child = spawn(file, args, { cwd: options.cwd, env: options.env ?? process.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (error) {
    throw new ExecutorError(`cannot start ${file}: ${error instanceof Error ? error.message : String(error)}`, 'system', { cause: error });
  }
  const end = ended(child);
  const pid = child.pid;
  if (pid !== undefined) track(pid);
  child.stdout?.on('data', (chunk: Buffer) => request.onOutput(chunk));
  child.stderr?.on('data', (chunk: Buffer) => request.onOutput(chunk));
  // A shell that exits before reading all of its script closes the pipe: not an error of ours.
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(input);

  let killTimer: NodeJS.Timeout | undefined;
  const onAbort = (): void => {
    signalGroup(pid, 'SIGTERM');
    killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
  };
  request.signal.addEventListener('abort', onAbort, { once: true });
  // A background process still holding the output pipe must not keep the stage open.
  child.once('exit', () => signalGroup(pid, 'SIGKILL'));
  try {
    const result = await end;
    if ('error' in result) throw new ExecutorError(`cannot run ${file}: ${result.error.message}`, 'system', { cause: result.error });
    if (result.code !== null) return { exitCode: result.code };
    return { exitCode: 128 + (SIGNAL_NUMBERS[result.signal ?? ''] ?? 1) };
  } finally {
    request.signal.removeEventListener('abort', onAbort);
    if (killTimer) clearTimeout(killTimer);
    // Nothing the script left running in its group outlives the stage.
    signalGroup(pid, 'SIGKILL');
    if (pid !== undefined) liveGroups.delete(pid);
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
