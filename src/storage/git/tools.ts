import { pipeline, PassThrough, type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { niced } from './run.ts';
import { sharedSpawner, type ProcessExit, type SpawnedProcess } from './spawner.ts';

/**
 * The programs git storage runs besides git (`cp` and `tar` for snapshots, `gzip` and `bzip2`
 * for archives), started like git from the process-wide spawner: a fork of the small helper,
 * never of the coordinator, and always under `nice` (they serve heavy work only).
 */

const MAX_STDERR_BYTES = 16 * 1024;

/** A sealed environment: no TAR_OPTIONS, GZIP or BZIP2 of the coordinator's leak into the tools. */
function toolEnvironment(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C' };
}

async function startTool(command: readonly string[], cwd: string | undefined): Promise<SpawnedProcess> {
  const [file, args] = niced(command);
  // A group of its own, killed if this process goes away without waiting for it (as execa's cleanup did).
  return sharedSpawner().spawn({ file, args, env: toolEnvironment(), cwd, detached: true, killWithParent: true });
}

async function collectStderr(stream: Readable): Promise<string> {
  let text = '';
  for await (const chunk of stream) if (text.length < MAX_STDERR_BYTES) text += (chunk as Buffer).toString('utf8');
  return text;
}

function exitDescription(exit: ProcessExit): string {
  if (exit.signal) return `killed by ${exit.signal}`;
  return exit.code === null ? 'lost by the process spawner' : `exit code ${exit.code}`;
}

export interface ToolResult {
  /** -1 when it was killed by a signal or lost. */
  exitCode: number;
  stderr: string;
}

/** Runs a tool to its end with no input, its output dropped; its exit code and stderr (the first 16 KiB). */
export async function runTool(command: readonly string[], options: { cwd?: string } = {}): Promise<ToolResult> {
  const tool = await startTool(command, options.cwd);
  tool.stdin.end();
  tool.stdout.resume();
  const [stderr, exit] = await Promise.all([collectStderr(tool.stderr), tool.exited, finished(tool.stdout).catch(() => undefined)]);
  return { exitCode: exit.code ?? -1, stderr };
}

/**
 * Streams a tool's stdout, with `input` (if any) piped into its stdin. The stream ends only
 * once the tool exited 0; a failure of the tool or of the input destroys it with an error, so
 * a truncated tar or archive never looks whole. Destroying the stream kills the tool and
 * destroys the input.
 */
export function streamTool(command: readonly string[], options: { cwd?: string; input?: Readable } = {}): Readable {
  const output = new PassThrough();
  const { input } = options;
  let tool: SpawnedProcess | undefined;
  const stop = (): void => {
    tool?.kill('SIGKILL');
    for (const stream of tool ? [tool.stdin, tool.stdout, tool.stderr] : []) stream.destroy();
  };
  output.on('close', () => {
    stop();
    input?.destroy();
  });
  void (async () => {
    tool = await startTool(command, options.cwd);
    if (output.destroyed) return stop();
    // The tool may exit before reading all of its input: its exit status tells, not EPIPE.
    tool.stdin.on('error', () => undefined);
    if (input) {
      // A failing input (or a tool that stops reading it) fails the stream: the tool's output
      // of half an input could otherwise end cleanly.
      pipeline(input, tool.stdin, (error) => {
        if (error) output.destroy(error);
      });
    } else {
      tool.stdin.end();
    }
    tool.stdout.pipe(output, { end: false });
    const [stderr, exit] = await Promise.all([collectStderr(tool.stderr), tool.exited, finished(tool.stdout)]);
    if (output.destroyed) return;
    if (exit.code === 0) output.end();
    else output.destroy(new Error(`${command[0]} failed (${exitDescription(exit)}): ${stderr.trim().slice(0, 300)}`));
  })().catch((error: unknown) => output.destroy(error instanceof Error ? error : new Error(String(error))));
  return output;
}
