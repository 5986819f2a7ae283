import { PassThrough, type Readable } from 'node:stream';
import { execa } from 'execa';
import { GantryError } from '../../shared/errors.ts';
import { contentFailure, GitContentError } from './content.ts';
import { ClientGoneError } from './work-queue.ts';

/** The empty tree's id: the base of a root commit's diff. */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
export const ZERO_OID = '0000000000000000000000000000000000000000';

export interface GitRunOptions {
  /** stdin: whole, or streamed (large inputs such as fast-import streams). */
  input?: string | Buffer | Readable;
  /** Extra environment (author, index file); merged over the isolated base environment. */
  env?: Record<string, string>;
  /** Exit codes that are answers rather than failures (e.g. 1 for `merge-base --is-ancestor`). */
  allowedExitCodes?: readonly number[];
  /** Working directory; defaults to the process's. */
  cwd?: string;
  /** Heavy work (diffs, blame, archives): run under `nice` so the API keeps the CPU. */
  lowPriority?: boolean;
  /** Kills git when the requester has gone (the run then rejects with ClientGoneError). */
  signal?: AbortSignal;
}

/** Niceness of heavy git work: the coordinator itself runs at 0. */
const HEAVY_NICENESS = '10';

/** `nice -n 10 <command>`: heavy work leaves the CPU to the API first. */
export function niced(command: readonly string[]): [string, string[]] {
  return ['nice', ['-n', HEAVY_NICENESS, ...command]];
}

/** The program and arguments that run git, under `nice` for heavy work. */
export function gitInvocation(args: readonly string[], lowPriority = false): [string, string[]] {
  return lowPriority ? niced(['git', ...args]) : ['git', [...args]];
}

/**
 * The error for a git command that exited non-zero: GitContentError when git refused
 * the repository's content (a `.git` or `..` entry, a corrupt tree), else GitCommandError.
 */
export function gitFailure(args: readonly string[], exitCode: number, stderr: string): GantryError {
  const detail = contentFailure(stderr);
  return detail === null ? new GitCommandError(args, exitCode, stderr) : new GitContentError(detail);
}

export interface GitRunResult {
  stdout: Buffer;
  stderr: string;
  exitCode: number;
}

/**
 * Environment every git process gets: no user or system configuration (a user's
 * commit.gpgsign or init.defaultBranch must not leak in), no prompts, C locale messages.
 */
export function gitEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: process.env.HOME ?? '/',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    ...extra,
  };
}

/** A git failure nobody planned for: the command is in the message (for the log), never in an answer. */
export class GitCommandError extends GantryError {
  readonly exitCode: number;
  readonly stderr: string;

  constructor(args: readonly string[], exitCode: number, stderr: string) {
    super('GANTRY_E_GIT_FAILED', `git ${args.slice(0, 4).join(' ')} failed (${exitCode}): ${stderr.trim().slice(0, 500)}`);
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

/** Runs git against a repository (`--git-dir`), buffering its output. */
export async function runGit(gitDir: string | null, args: readonly string[], options: GitRunOptions = {}): Promise<GitRunResult> {
  if (options.signal?.aborted) throw new ClientGoneError();
  const fullArgs = gitDir === null ? [...args] : [`--git-dir=${gitDir}`, ...args];
  const [file, fileArgs] = gitInvocation(fullArgs, options.lowPriority);
  const result = await execa(file, fileArgs, {
    cancelSignal: options.signal,
    cwd: options.cwd,
    input: options.input,
    stdin: options.input === undefined ? 'ignore' : undefined,
    env: gitEnvironment(options.env),
    extendEnv: false,
    encoding: 'buffer',
    stripFinalNewline: false,
    reject: false,
    maxBuffer: 1024 * 1024 * 1024,
  });
  if (result.isCanceled) throw new ClientGoneError();
  const exitCode = result.exitCode ?? -1;
  const stdout = Buffer.from(result.stdout);
  const stderr = Buffer.from(result.stderr).toString('utf8');
  if (exitCode !== 0 && !(options.allowedExitCodes ?? []).includes(exitCode)) {
    throw gitFailure(fullArgs, exitCode, stderr || (result.failed ? (result.message ?? '') : ''));
  }
  return { stdout, stderr, exitCode };
}

/** Runs git and returns stdout as text. */
export async function gitText(gitDir: string | null, args: readonly string[], options: GitRunOptions = {}): Promise<string> {
  return (await runGit(gitDir, args, options)).stdout.toString('utf8');
}

export interface GitStreamOptions {
  lowPriority?: boolean;
  /** Kills git when the requester has gone; the stream then fails with ClientGoneError. */
  signal?: AbortSignal;
}

/**
 * Streams a git command's stdout. The stream ends only once git exited 0; any failure
 * destroys it with an error, so a truncated archive never looks complete. Destroying the
 * stream (the client went away) kills git.
 */
export function streamGit(gitDir: string, args: readonly string[], options: GitStreamOptions = {}): Readable {
  const output = new PassThrough();
  const { signal } = options;
  if (signal?.aborted) {
    output.destroy(new ClientGoneError());
    return output;
  }
  const [file, fileArgs] = gitInvocation([`--git-dir=${gitDir}`, ...args], options.lowPriority);
  const subprocess = execa(file, fileArgs, {
    stdin: 'ignore',
    env: gitEnvironment(),
    extendEnv: false,
    buffer: { stdout: false, stderr: true },
    encoding: 'buffer',
    reject: false,
  });
  subprocess.stdout.pipe(output, { end: false });
  subprocess.then(
    (result) => {
      if (result.exitCode === 0) output.end();
      else output.destroy(gitFailure(args, result.exitCode ?? -1, Buffer.from(result.stderr ?? '').toString('utf8')));
    },
    (error: unknown) => output.destroy(error instanceof Error ? error : new Error(String(error))),
  );
  const onAbort = (): void => {
    output.destroy(new ClientGoneError());
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  output.on('close', () => {
    signal?.removeEventListener('abort', onAbort);
    if (subprocess.exitCode === null) subprocess.kill();
  });
  return output;
}
