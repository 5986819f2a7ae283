/**
 * `--shell-on-failure`: when a job fails, before its environment is cleaned up, an interactive
 * shell in it — for the shell executor, `$SHELL` (else bash) in the job's build directory with
 * the job's variables (file variables written to files, as the job had them); for the docker
 * executor, bash (else sh) run in the job's container as `docker exec -it` does, in its
 * project directory with its variables. The job's clean-up, and its report to the
 * coordinator, wait until the shell exits.
 */
import { spawn, type StdioOptions } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { InteractiveShellRequest } from '../executors/types.ts';
import type { BeforeFailedCleanup, FailedJob } from '../runner/job/engine.ts';

/**
 * Where the shell talks: the process's own terminal (`inherit-stderr`: its output on stderr, as
 * with --json, whose stdout is the result document), or (tests) a script for its stdin and a
 * sink for its output.
 */
export type ShellTerminal = 'inherit' | 'inherit-stderr' | { input: string; output: (text: string) => void };

let openShells = 0;

/** Whether a failure shell has the terminal now (Ctrl-C is then the shell's, not runner exec's). */
export function failureShellIsOpen(): boolean {
  return openShells > 0;
}

/** One shell at a time: two failed jobs take turns at the terminal. */
export function failureShellHook(terminal: ShellTerminal, tell: (text: string) => void): BeforeFailedCleanup {
  let turn: Promise<void> = Promise.resolve();
  return (failed) => {
    const mine = turn.then(() => openShell(failed, terminal, tell));
    turn = mine.catch(() => undefined);
    return mine;
  };
}

async function openShell(failed: FailedJob, terminal: ShellTerminal, tell: (text: string) => void): Promise<void> {
  const directory = failed.environment.info.hostProjectDir;
  const name = failed.payload.job_info.name;
  if (directory === null) {
    await openContainerShell(failed, terminal, tell);
    return;
  }
  const files = await mkdtemp(path.join(tmpdir(), 'gantry-shell-'));
  try {
    const env: Record<string, string> = { ...process.env } as Record<string, string>;
    for (const variable of failed.variables) {
      if (variable.file) {
        const file = path.join(files, variable.key);
        await writeFile(file, variable.value);
        await chmod(file, 0o600);
        env[variable.key] = file;
      } else {
        env[variable.key] = variable.value;
      }
    }
    const shell = process.env.SHELL || 'bash';
    tell(`\nrunner exec: job "${name}" failed (${failed.failureReason ?? 'unknown failure'}). Opening ${shell} in its build directory ${directory} with its variables; exit the shell to go on.\n`);
    openShells++;
    try {
      await runShell(shell, directory, env, terminal);
    } finally {
      openShells--;
    }
  } finally {
    await rm(files, { recursive: true, force: true });
  }
}

function runShell(shell: string, cwd: string, env: Record<string, string>, terminal: ShellTerminal): Promise<void> {
  return new Promise((resolve, reject) => {
    const inherited = typeof terminal === 'string';
    const stdio: StdioOptions = terminal === 'inherit' ? 'inherit' : terminal === 'inherit-stderr' ? [0, 2, 2] : ['pipe', 'pipe', 'pipe'];
    // Interactive on a terminal only: piped commands (or /dev/null) would get prompts and job-control warnings.
    const child = spawn(shell, inherited && process.stdin.isTTY ? ['-i'] : [], { cwd, env, stdio });
    if (!inherited) {
      child.stdout?.setEncoding('utf8').on('data', terminal.output);
      child.stderr?.setEncoding('utf8').on('data', terminal.output);
      child.stdin?.end(terminal.input);
    }
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

async function openContainerShell(failed: FailedJob, terminal: ShellTerminal, tell: (text: string) => void): Promise<void> {
  const { environment, payload } = failed;
  const openShell = environment.openShell?.bind(environment);
  if (!openShell) {
    tell(`runner exec: job "${payload.job_info.name}" failed; its executor cannot open a shell in its environment\n`);
    return;
  }
  tell(
    `\nrunner exec: job "${payload.job_info.name}" failed (${failed.failureReason ?? 'unknown failure'}). Opening a shell in its container (${environment.info.image ?? 'no image'})` +
      ` in ${environment.info.projectDir} with its variables; exit the shell to go on.\n`,
  );
  openShells++;
  try {
    await withStdio(terminal, (stdio) => openShell({ variables: failed.variables, ...stdio }));
  } catch (error) {
    tell(`runner exec: ${error instanceof Error ? error.message : String(error)}\n`);
  } finally {
    openShells--;
  }
}

/** This process's terminal (raw while the shell has it), or the test's script and sink. */
async function withStdio<T>(terminal: ShellTerminal, body: (stdio: Omit<InteractiveShellRequest, 'variables'>) => Promise<T>): Promise<T> {
  if (typeof terminal !== 'string') {
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, done) {
        terminal.output(chunk.toString('utf8'));
        done();
      },
    });
    return body({ stdin: Readable.from([terminal.input]), stdout, tty: null });
  }
  const { stdin } = process;
  const stdout = terminal === 'inherit-stderr' ? process.stderr : process.stdout;
  const tty = stdin.isTTY && stdout.isTTY;
  // No resume here: what is typed before the shell's listener is there would be dropped.
  if (tty) stdin.setRawMode(true);
  try {
    return await body({ stdin, stdout, tty: tty ? { columns: stdout.columns, rows: stdout.rows } : null });
  } finally {
    if (tty) stdin.setRawMode(false);
    stdin.pause();
  }
}
