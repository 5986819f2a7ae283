import { PassThrough, type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { GantryError } from '../../shared/errors.ts';
import { contentFailure, GitContentError } from './content.ts';
import { sharedSpawner, type ProcessExit, type SpawnedProcess } from './spawner.ts';
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
  const { signal } = options;
  if (signal?.aborted) throw new ClientGoneError();
  const fullArgs = gitDir === null ? [...args] : [`--git-dir=${gitDir}`, ...args];
  const git = await startGit(fullArgs, options);
  const onAbort = (): void => git.kill('SIGKILL');
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const input = feedInput(git.stdin, options.input);
    const [stdout, stderrBytes, exit] = await Promise.all([collect(git.stdout), collect(git.stderr), git.exited, input]);
    if (signal?.aborted) throw new ClientGoneError();
    const exitCode = exit.code ?? -1;
    const stderr = stderrBytes.toString('utf8');
    if (exitCode !== 0 && !(options.allowedExitCodes ?? []).includes(exitCode)) {
      throw gitFailure(fullArgs, exitCode, stderr || exitDescription(exit));
    }
    return { stdout, stderr, exitCode };
  } catch (error) {
    git.kill('SIGKILL');
    for (const stream of [git.stdin, git.stdout, git.stderr]) stream.destroy();
    throw signal?.aborted ? new ClientGoneError() : error;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Starts git from the process-wide spawner: forked from a small helper process rather than
 * from this one, which costs the coordinator about 3 ms of CPU per command instead of 10–20
 * and never stalls its event loop for a fork. A git that cannot be started fails like a git
 * that exited non-zero.
 */
async function startGit(fullArgs: readonly string[], options: { env?: Record<string, string>; cwd?: string; lowPriority?: boolean }): Promise<SpawnedProcess> {
  const [file, fileArgs] = gitInvocation(fullArgs, options.lowPriority);
  try {
    return await sharedSpawner().spawn({ file, args: fileArgs, env: gitEnvironment(options.env), cwd: options.cwd });
  } catch (error) {
    throw gitFailure(fullArgs, -1, error instanceof Error ? error.message : String(error));
  }
}

/** Writes the whole input to git's stdin (or none: stdin ends at once). */
async function feedInput(stdin: SpawnedProcess['stdin'], input: GitRunOptions['input']): Promise<void> {
  if (input === undefined) {
    stdin.end();
    return;
  }
  if (typeof input === 'string' || Buffer.isBuffer(input)) {
    // git may exit before reading it all (an early refusal): its exit status tells, not EPIPE.
    stdin.on('error', () => undefined);
    stdin.end(input);
    return;
  }
  // git may stop reading early (a refused patch): the run then ends with git's exit status, and
  // the rest of the input is dropped. A failing source is the caller's error, never a truncated
  // input git could take for a whole one.
  stdin.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    const gitStoppedReading = (): void => {
      input.unpipe(stdin);
      input.destroy();
      resolve();
    };
    stdin.once('close', gitStoppedReading);
    input.once('error', (error) => {
      stdin.off('close', gitStoppedReading);
      stdin.destroy();
      reject(error);
    });
    input.once('end', () => {
      stdin.off('close', gitStoppedReading);
      resolve();
    });
    input.pipe(stdin);
  });
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function exitDescription(exit: ProcessExit): string {
  if (exit.signal) return `killed by ${exit.signal}`;
  return exit.code === null ? 'the process spawner lost the process' : '';
}

/** Runs git and returns stdout as text. */
export async function gitText(gitDir: string | null, args: readonly string[], options: GitRunOptions = {}): Promise<string> {
  return (await runGit(gitDir, args, options)).stdout.toString('utf8');
}

export interface GitStreamOptions {
  lowPriority?: boolean;
  /** stdin, small and whole (a list of object ids); none: stdin ends at once. */
  input?: string;
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
  const onAbort = (): void => {
    output.destroy(new ClientGoneError());
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  let git: SpawnedProcess | undefined;
  output.on('close', () => {
    signal?.removeEventListener('abort', onAbort);
    git?.kill('SIGKILL');
    for (const stream of git ? [git.stdout, git.stderr] : []) stream.destroy();
  });
  void (async () => {
    git = await startGit([`--git-dir=${gitDir}`, ...args], { lowPriority: options.lowPriority });
    if (output.destroyed) {
      git.kill('SIGKILL');
      git.stdout.destroy();
      git.stderr.destroy();
      return;
    }
    // git may exit before reading all of its input (it failed): the write error is not the failure.
    git.stdin.on('error', () => undefined);
    if (options.input === undefined) git.stdin.end();
    else git.stdin.end(options.input);
    git.stdout.pipe(output, { end: false });
    const drained = finished(git.stdout);
    const [stderr, exit] = await Promise.all([collect(git.stderr), git.exited, drained]);
    if (exit.code === 0) output.end();
    else output.destroy(gitFailure(args, exit.code ?? -1, stderr.toString('utf8') || exitDescription(exit)));
  })().catch((error: unknown) => output.destroy(error instanceof Error ? error : new Error(String(error))));
  return output;
}
