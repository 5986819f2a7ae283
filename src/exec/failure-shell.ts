/**
 * `--shell-on-failure`: when a job fails, before its environment is cleaned up, an interactive
 * shell in it — for the shell executor, `$SHELL` (else bash) in the job's build directory with
 * the job's variables (file variables written to files, as the job had them). The job's
 * clean-up, and its report to the coordinator, wait until the shell exits.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BeforeFailedCleanup, FailedJob } from '../runner/job/engine.ts';

/** Where the shell talks: the process's own terminal, or (tests) a script for its stdin and a sink for its output. */
export type ShellTerminal = 'inherit' | { input: string; output: (text: string) => void };

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
    tell(`runner exec: job "${name}" failed; --shell-on-failure opens shells for the shell executor only\n`);
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
    const child = spawn(shell, terminal === 'inherit' ? ['-i'] : [], { cwd, env, stdio: terminal === 'inherit' ? 'inherit' : ['pipe', 'pipe', 'pipe'] });
    if (terminal !== 'inherit') {
      child.stdout?.setEncoding('utf8').on('data', terminal.output);
      child.stderr?.setEncoding('utf8').on('data', terminal.output);
      child.stdin?.end(terminal.input);
    }
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}
