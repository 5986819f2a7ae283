/** Shared by the runner commands: where config.toml is, reading it, printing lines. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseRunnerConfig, type RunnerConfig } from '../../runner/config/config.ts';

export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Asks a question on a terminal; undefined when not interactive. */
  ask?: (question: string) => Promise<string>;
}

/** `--config`, else GANTRY_RUNNER_CONFIG, else ./config.toml. */
export function configPath(args: { config?: string }, io: CommandIo): string {
  return path.resolve(io.cwd, args.config ?? io.env.GANTRY_RUNNER_CONFIG ?? 'config.toml');
}

export class CommandError extends Error {}

export async function loadConfig(file: string, io: CommandIo): Promise<RunnerConfig> {
  return (await readConfig(file, io)).config;
}

/** The parsed config and the text it came from (warnings go to stderr). */
export async function readConfig(file: string, io: CommandIo): Promise<{ config: RunnerConfig; text: string }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CommandError(code === 'ENOENT' ? `${file}: no such file (register a runner first, or pass --config)` : `${file}: ${(error as Error).message}`);
  }
  const { config, warnings } = parseRunnerConfig(text, file);
  for (const warning of warnings) io.stderr(`WARNING: ${warning}\n`);
  return { config, text };
}

/** A token as it may be shown: its first 8 characters. */
export function shown(token: string): string {
  return `${token.slice(0, 8)}...`;
}
