/**
 * `runner exec [JOB...]`: flags to an ExecRequest, Ctrl-C to a clean stop, errors to one line.
 * The work is src/exec/'s.
 */
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { PipelineSource } from '../../coordinator/services/ci/pipelines/creation.ts';
import { ExecError } from '../../exec/errors.ts';
import { failureShellIsOpen, type ShellTerminal } from '../../exec/failure-shell.ts';
import { isVariableName } from '../../exec/local-variables.ts';
import { runExec, type ExecIo, type ExecRequest } from '../../exec/run.ts';
import { parseOtherProject } from '../../exec/other-projects.ts';
import { parseInputPairs } from '../input-pairs.ts';

export interface ExecArgs {
  jobs?: string[];
  /** The directory the run starts from instead of the process's (relative paths of other flags too). */
  cwd?: string;
  file?: string;
  needs?: boolean;
  stage?: string;
  manual?: string[];
  list?: boolean;
  preview?: boolean;
  payload?: string;
  json?: boolean;
  committed?: boolean;
  ref?: string;
  tag?: string;
  source?: string;
  variable?: string[];
  envFile?: string[];
  input?: string[];
  project?: string[];
  verbose?: boolean;
  shellOnFailure?: boolean;
  artifactsDir?: string;
  cacheDir?: string;
  reuse?: boolean;
  executor?: string;
  dockerImage?: string;
  concurrency?: number;
}

const SOURCES: readonly PipelineSource[] = ['push', 'web', 'api', 'trigger', 'schedule', 'pipeline', 'external', 'merge_request_event'];

/** Where runExecCommand writes, and what it knows of its terminal. */
export interface ExecCommandIo extends ExecIo {
  cwd: string;
  colour: boolean;
  /** stdout is a terminal: a progress line is kept there while jobs run. */
  tty?: boolean;
  /** Where --shell-on-failure's shell talks (default: this process's terminal). */
  shellTerminal?: ShellTerminal;
  /** Aborted when stdout or stderr can no longer be written (its reader went away). */
  outputClosed?: AbortSignal;
}

/** The exit status of a run stopped because its output was closed: a process killed by SIGPIPE's. */
const OUTPUT_CLOSED_EXIT = 141;

export async function runExecCommand(args: ExecArgs, io: ExecCommandIo): Promise<number> {
  let request: ExecRequest;
  try {
    request = toRequest(args, io);
  } catch (error) {
    return failed(args, io, error instanceof Error ? error.message : String(error), 2);
  }
  const interrupt = new AbortController();
  // 128 + the signal's number, as a shell reports a process the signal ended.
  let stoppedExit = 130;
  // Ctrl-C in a failure shell is the shell's.
  const stop = (signal: NodeJS.Signals) => {
    if (signal === 'SIGINT' && failureShellIsOpen()) return;
    if (!interrupt.signal.aborted && signal === 'SIGTERM') stoppedExit = 143;
    interrupt.abort(new ExecError('interrupted'));
  };
  let outputClosed = false;
  const stopWithoutOutput = () => {
    outputClosed = true;
    interrupt.abort(new ExecError('output closed'));
  };
  if (io.outputClosed?.aborted) stopWithoutOutput();
  io.outputClosed?.addEventListener('abort', stopWithoutOutput);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    return await runExec({ ...request, signal: interrupt.signal }, io);
  } catch (error) {
    if (outputClosed) return OUTPUT_CLOSED_EXIT;
    // A process the terminal's Ctrl-C reached too (git, say) may fail first: the run was interrupted all the same.
    const message = interrupt.signal.aborted ? 'interrupted' : error instanceof Error ? error.message : String(error);
    return failed(args, io, message, interrupt.signal.aborted ? stoppedExit : 1);
  } finally {
    io.outputClosed?.removeEventListener('abort', stopWithoutOutput);
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

/** The one-line error on stderr; with --json, stdout's document says it too (`status: "error"`), as no result will. */
function failed(args: ExecArgs, io: ExecCommandIo, message: string, exitCode: number): number {
  io.stderr(`runner exec: ${message}\n`);
  if (args.json) io.stdout(`${JSON.stringify({ status: 'error', exitCode, error: message }, null, 2)}\n`);
  return exitCode;
}

function toRequest(args: ExecArgs, io: ExecCommandIo): ExecRequest {
  const modes = [args.list && 'list', args.preview && 'preview', args.payload !== undefined && 'payload'].filter((mode) => typeof mode === 'string');
  if (modes.length > 1) throw new Error('--list, --preview and --payload exclude each other');
  if (args.ref !== undefined && args.tag !== undefined) throw new Error('--ref and --tag exclude each other');
  checkSelection(args, modes[0]);
  const source = args.source ?? 'push';
  if (!(SOURCES as readonly string[]).includes(source)) throw new Error(`--source must be one of ${SOURCES.join(', ')}`);
  const executor = args.executor ?? 'shell';
  if (executor !== 'shell' && executor !== 'docker') throw new Error('--executor must be shell or docker');
  const concurrency = args.concurrency ?? availableParallelism();
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) throw new Error('--concurrency must be a whole number from 1 to 64');
  const mode = (modes[0] ?? 'run') as ExecRequest['mode'];
  const cwd = startDirectory(args, io);
  return {
    cwd,
    file: args.file,
    jobs: mode === 'payload' ? [args.payload as string] : (args.jobs ?? []),
    needs: args.needs ?? false,
    stage: args.stage,
    manual: args.manual ?? [],
    mode,
    json: args.json ?? false,
    committed: args.committed ?? false,
    ref: args.ref,
    tag: args.tag,
    source: source as PipelineSource,
    variables: (args.variable ?? []).map(parseVariable),
    envFiles: args.envFile ?? [],
    inputs: parseInputPairs(args.input ?? []),
    projects: (args.project ?? []).map((pair) => parseOtherProject(pair, cwd)),
    runner: { executor, dockerImage: args.dockerImage, concurrency },
    colour: io.colour,
    verbose: args.verbose ?? false,
    progress: io.tty === true && !(args.json ?? false),
    // With --json, stdout is the result document: the shell talks on stderr.
    shellOnFailure: args.shellOnFailure ? (io.shellTerminal ?? (args.json ? 'inherit-stderr' : 'inherit')) : undefined,
    reuse: args.reuse ?? false,
    artifactsDir: args.artifactsDir === undefined ? undefined : path.resolve(cwd, args.artifactsDir),
    cacheDir: args.cacheDir === undefined ? undefined : path.resolve(cwd, args.cacheDir),
  };
}

/** `--cwd` against the process's directory, which it must name. */
function startDirectory(args: ExecArgs, io: ExecCommandIo): string {
  if (args.cwd === undefined) return io.cwd;
  const directory = path.resolve(io.cwd, args.cwd);
  if (!statSync(directory, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`--cwd: ${args.cwd} is not a directory`);
  return directory;
}

/** Job names, `--stage` and `--needs` choose the jobs of a run: a flag that shows another set would silently drop them. */
function checkSelection(args: ExecArgs, mode: string | undefined): void {
  const choices = [(args.jobs ?? []).length > 0 && 'job names', args.stage !== undefined && '--stage', args.needs === true && '--needs'].filter((choice) => typeof choice === 'string');
  if (mode === undefined) {
    // --needs adds to a choice; alone it would run the whole pipeline, which has every job already.
    if (args.needs === true && choices.length === 1) throw new Error('--needs adds what the chosen jobs need: name jobs or a --stage');
    return;
  }
  if (choices.length === 0) return;
  if (mode === 'payload') throw new Error(`--payload JOB names its one job: leave out ${choices.join(' and ')}`);
  throw new Error(`--${mode} shows the whole pipeline: leave out ${choices.join(' and ')}`);
}

function parseVariable(pair: string): { key: string; value: string } {
  const at = pair.indexOf('=');
  if (at <= 0) throw new Error(`--variable expects KEY=VALUE, got "${pair}"`);
  const key = pair.slice(0, at);
  if (!isVariableName(key)) throw new Error(`--variable ${key}: not a variable name (letters, digits and _, not starting with a digit)`);
  return { key, value: pair.slice(at + 1) };
}

