/** Working trees for the `runner exec` tests, and the command run in this process with its output kept. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runExecCommand, type ExecArgs, type ExecCommandIo } from '../../src/cli/commands/exec.ts';
import { within } from '../helpers/bounded.ts';

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Tester', '-c', 'user.email=tester@example.com', ...args], { cwd, encoding: 'utf8' });
}

/** A repository with `files` committed on `main`. */
export function workingTree(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'gantry-exec-test-'));
  git(dir, 'init', '-q', '-b', 'main');
  writeFiles(dir, files);
  git(dir, 'add', '-A');
  git(dir, 'commit', '--allow-empty', '-qm', 'first commit');
  return dir;
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
}

export interface ExecOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** `runner exec` with `args` in `cwd` (stdout a terminal when `tty`); a pipeline gets two minutes on a busy machine. */
export async function exec(cwd: string, args: ExecArgs, terminal: Pick<ExecCommandIo, 'tty' | 'shellTerminal'> = {}): Promise<ExecOutcome> {
  let stdout = '';
  let stderr = '';
  // A run that hangs (a job no runner takes, say) is stopped as when its reader goes away, so that
  // its coordinator and runner close and the test process can end after the failure.
  const stop = new AbortController();
  const code = await within(
    runExecCommand({ concurrency: 2, ...args }, { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), cwd, colour: false, outputClosed: stop.signal, ...terminal }),
    120_000,
    `runner exec ${JSON.stringify(args)}`,
  ).catch((error: unknown) => {
    stop.abort();
    throw error;
  });
  return { code, stdout, stderr };
}

export interface JsonResult {
  status: string;
  exitCode: number;
  jobs: Array<{ name: string; stage: string; status: string; failureReason: string | null }>;
}

export function statuses(result: JsonResult): Record<string, string> {
  return Object.fromEntries(result.jobs.map((job) => [job.name, job.status]));
}
