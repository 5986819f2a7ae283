/**
 * `docker exec -it` through the engine API, for an interactive shell in a job's container
 * (runner exec's --shell-on-failure): the job's variables in its environment, its project
 * directory as working directory, file variables copied in as the job's script writes them.
 */
import type Docker from 'dockerode';
import path from 'node:path';
import type { Duplex, Readable } from 'node:stream';
import tar from 'tar-stream';
import type { InteractiveShellRequest } from '../types.ts';

export interface ShellCommand {
  cmd: string[];
  env: string[];
  workingDir: string;
}

/**
 * The `KEY=value` environment of the shell and, when the job has file variables, a tar of
 * their files for `<tmpDir>` (each variable then names its file).
 */
export function shellEnvironment(variables: InteractiveShellRequest['variables'], tmpDir: string): { env: string[]; files: Readable | null } {
  const env: string[] = [];
  const pack = tar.pack();
  let files = false;
  for (const variable of variables) {
    if (!variable.file) {
      env.push(`${variable.key}=${variable.value}`);
      continue;
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable.key)) continue;
    pack.entry({ name: variable.key, mode: 0o600, type: 'file' }, variable.value);
    env.push(`${variable.key}=${path.posix.join(tmpDir, variable.key)}`);
    files = true;
  }
  pack.finalize();
  return { env, files: files ? (pack as unknown as Readable) : null };
}

/** Runs `command` in the running `container` with the request's stdio; answers its exit code once it ends. */
export async function execInteractive(docker: Docker, container: Docker.Container, command: ShellCommand, request: InteractiveShellRequest): Promise<number> {
  const tty = request.tty !== null;
  const exec = await container.exec({
    Cmd: command.cmd, Env: command.env, WorkingDir: command.workingDir, AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: tty,
  });
  const stream = (await exec.start({ hijack: true, stdin: true, Tty: tty })) as unknown as Duplex;
  if (request.tty) await exec.resize({ h: request.tty.rows, w: request.tty.columns }).catch(() => undefined);
  const ended = new Promise<void>((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
  // A terminal's output is one raw stream; without one, stdout and stderr come multiplexed.
  if (tty) stream.on('data', (chunk: Buffer) => request.stdout.write(chunk));
  else docker.modem.demuxStream(stream, request.stdout, request.stdout);
  const forward = (chunk: Buffer | string): void => void stream.write(chunk);
  const close = (): void => void stream.end();
  request.stdin.on('data', forward);
  request.stdin.once('end', close);
  try {
    await ended;
  } finally {
    request.stdin.off('data', forward);
    request.stdin.off('end', close);
    stream.destroy();
  }
  const inspected = (await exec.inspect()) as { ExitCode: number | null };
  return inspected.ExitCode ?? 0;
}
