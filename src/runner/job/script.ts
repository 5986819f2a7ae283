/**
 * The generated script of a user stage (reference §8.3), for bash or sh: exports, `cd` to
 * the project, each command echoed in green as `$ cmd` then run, all inside
 * `set -eo pipefail` + `: | eval '...'` so the first failing command ends the stage with its
 * exit code and no command reads the script as its stdin.
 */
import type { ScriptShell } from '../../executors/types.ts';
import type { BuildVariable } from './variables.ts';

const ESC = '\x1b';
const GREEN = `${ESC}[32;1m`;
const RESET = `${ESC}[0;m`;
const PLAIN_WORD = /^[A-Za-z0-9_\-./=:,+@%^]+$/;

/**
 * A word the shell reads back as `value`: ANSI-C `$'...'` for bash, POSIX single quotes for sh.
 * Control characters (ESC included) are `\xHH`, as gitlab-runner writes them: busybox's sh,
 * which runs the bash script in images without bash, reads `\x1b` but not `\E`.
 */
export function quote(value: string, shell: ScriptShell): string {
  if (value !== '' && PLAIN_WORD.test(value)) return value;
  if (shell === 'sh') return `'${value.replace(/'/g, `'\\''`)}'`;
  let body = '';
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '\\') body += '\\\\';
    else if (char === "'") body += "\\'";
    else if (char === '\n') body += '\\n';
    else if (char === '\t') body += '\\t';
    else if (char === '\r') body += '\\r';
    else if (code < 0x20 || code === 0x7f) body += `\\x${code.toString(16).padStart(2, '0')}`;
    else body += char;
  }
  return `$'${body}'`;
}

export interface ScriptContext {
  shell: ScriptShell;
  variables: readonly BuildVariable[];
  projectDir: string;
  /** CI_DEBUG_TRACE=true and not debug_trace_disabled. */
  debugTrace: boolean;
}

class Writer {
  readonly lines: string[] = [];
  constructor(private readonly shell: ScriptShell) {}

  line(text: string): void {
    this.lines.push(text);
  }

  echo(text: string): void {
    // sh's echo may interpret backslashes; printf %s never does.
    this.lines.push(this.shell === 'bash' ? `echo ${quote(text, 'bash')}` : `printf '%s\\n' ${quote(text, 'sh')}`);
  }

  notice(text: string): void {
    this.echo(`${GREEN}${text}${RESET}`);
  }

  emptyLine(): void {
    this.lines.push(this.shell === 'bash' ? 'echo' : `printf '\\n'`);
  }
}

function writeExports(writer: Writer, context: ScriptContext): void {
  const { shell } = context;
  const tmpDir = `${context.projectDir}.tmp`;
  let madeTmp = false;
  for (const variable of context.variables) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable.key)) continue;
    if (variable.file) {
      if (!madeTmp) writer.line(`mkdir -p ${quote(tmpDir, shell)}`);
      madeTmp = true;
      const file = `${tmpDir}/${variable.key}`;
      writer.line(`printf '%s' ${quote(variable.value, shell)} > ${quote(file, shell)}`);
      writer.line(`export ${variable.key}=${quote(file, shell)}`);
    } else {
      writer.line(`export ${variable.key}=${quote(variable.value, shell)}`);
    }
  }
}

function writeCommands(writer: Writer, commands: readonly string[]): void {
  for (const raw of commands) {
    const command = raw.trim();
    if (command === '') {
      writer.emptyLine();
      continue;
    }
    const lines = command.split('\n');
    writer.notice(lines.length > 1 ? `$ ${lines[0]} # collapsed multi-line command` : `$ ${lines[0]}`);
    writer.line(command);
  }
}

/** The body of step_<name>: exports, cd, pre_build_script, the commands, post_build_script. */
export function userStageScript(context: ScriptContext, commands: readonly string[], hooks: { preBuild?: string; postBuild?: string } = {}): string {
  const writer = new Writer(context.shell);
  writeExports(writer, context);
  writer.line(`cd ${quote(context.projectDir, context.shell)}`);
  if (hooks.preBuild?.trim()) writer.line(hooks.preBuild);
  writeCommands(writer, commands);
  if (hooks.postBuild?.trim()) writer.line(hooks.postBuild);
  return finalize(writer.lines.join('\n'), context);
}

/**
 * A get_sources hook (`pre_get_sources_script`, `post_get_sources_script`): its commands in the
 * project directory, made first (before the sources are fetched a fresh build has none yet).
 */
export function sourcesHookScript(context: ScriptContext, commands: readonly string[]): string {
  const writer = new Writer(context.shell);
  writeExports(writer, context);
  writer.line(`mkdir -p ${quote(context.projectDir, context.shell)}`);
  writer.line(`cd ${quote(context.projectDir, context.shell)}`);
  writeCommands(writer, commands);
  return finalize(writer.lines.join('\n'), context);
}

/** The body of after_script: like a step, announced with `Running after script...`. */
export function afterScript(context: ScriptContext, commands: readonly string[]): string {
  const writer = new Writer(context.shell);
  writeExports(writer, context);
  writer.line(`cd ${quote(context.projectDir, context.shell)}`);
  writer.notice('Running after script...');
  writeCommands(writer, commands);
  return finalize(writer.lines.join('\n'), context);
}

/** Removes the file variables' directory (`<project dir>.tmp`). */
export function cleanupFileVariablesScript(context: ScriptContext): string {
  return finalize(`rm -r -f ${quote(`${context.projectDir}.tmp`, context.shell)}`, context);
}

function finalize(body: string, context: ScriptContext): string {
  const header = [`#!/usr/bin/env ${context.shell}`, ''];
  if (context.debugTrace) header.push('set -o xtrace');
  if (context.shell === 'bash') header.push('set -eo pipefail');
  else header.push('set -e', '(set -o pipefail) 2>/dev/null && set -o pipefail');
  header.push('set +o noclobber');
  return `${[...header, `: | eval ${quote(`${body}\n`, context.shell)}`, 'exit 0'].join('\n')}\n`;
}
