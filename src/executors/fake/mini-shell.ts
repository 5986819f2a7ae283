/**
 * A tiny interpreter for the fake executor: one command per line (or `;`-separated):
 * `echo WORDS [> FILE]`, `cat FILE`, `mkdir -p DIR`, `sleep SECONDS`, `exit N`, `true`, `false`.
 * Quotes group words; `$` expansion is not supported. Anything else is "command not found"
 * (exit 127). Relative paths are taken from the project directory.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EnvironmentInfo, RunRequest, RunResult } from '../types.ts';

export async function runMiniShell(request: RunRequest, environment: EnvironmentInfo): Promise<RunResult> {
  const out = (text: string): void => request.onOutput(Buffer.from(text));
  const resolve = (file: string): string => path.resolve(environment.projectDir, file);
  for (const command of request.script.split(/\n|;/).map((line) => line.trim())) {
    if (request.signal.aborted) return { exitCode: 137 };
    if (command === '' || command.startsWith('#')) continue;
    const words = splitWords(command);
    const [name, ...args] = words;
    switch (name) {
      case 'true':
        break;
      case 'false':
        return { exitCode: 1 };
      case 'exit':
        return { exitCode: Number(args[0] ?? 0) };
      case 'echo': {
        const redirect = args.indexOf('>');
        if (redirect >= 0) {
          await writeFile(resolve(args[redirect + 1] ?? ''), `${args.slice(0, redirect).join(' ')}\n`);
        } else {
          out(`${args.join(' ')}\n`);
        }
        break;
      }
      case 'cat': {
        const content = await readFile(resolve(args[0] ?? '')).catch(() => null);
        if (content === null) {
          out(`cat: ${args[0]}: No such file or directory\n`);
          return { exitCode: 1 };
        }
        request.onOutput(content);
        break;
      }
      case 'mkdir':
        await mkdir(resolve(args.filter((arg) => arg !== '-p')[0] ?? '.'), { recursive: true });
        break;
      case 'sleep':
        if (!(await sleep(Number(args[0] ?? 0) * 1000, request.signal))) return { exitCode: 137 };
        break;
      default:
        out(`sh: ${name}: not found\n`);
        return { exitCode: 127 };
    }
  }
  return { exitCode: 0 };
}

function splitWords(command: string): string[] {
  const words: string[] = [];
  for (const match of command.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) words.push(match[1] ?? match[2] ?? match[3] ?? '');
  return words;
}

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
