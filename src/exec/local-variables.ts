/**
 * The variables `runner exec` takes besides the CI file: `--env-file` files (dotenv syntax) and
 * the repository's own `.gantry/variables.yml`, whose variables become the local project's CI
 * variables, with their masked, protected, file and environment-scope flags, as the server
 * keeps them. See docs/exec.md ("Variables").
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { ExecError } from './errors.ts';

export interface PlainVariable {
  key: string;
  value: string;
}

export interface LocalVariable extends PlainVariable {
  masked: boolean;
  protected: boolean;
  file: boolean;
  /** `*` (every environment) when the file names none. */
  environmentScope: string;
}

export const VARIABLES_FILE = path.join('.gantry', 'variables.yml');
const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A name `--variable`, an env file and `.gantry/variables.yml` may give a variable. */
export function isVariableName(key: string): boolean {
  return KEY.test(key);
}

const FLAGS = ['value', 'masked', 'protected', 'file', 'environment_scope'];

/** Pairs of a dotenv file: `KEY=VALUE`, `export KEY=VALUE`, quotes, `#` comments; a bad line is an error naming it. */
export function parseEnvFile(text: string, name: string): PlainVariable[] {
  const variables: PlainVariable[] = [];
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const bad = (why: string) => new ExecError(`${name}:${index + 1}: ${why}`);
    const match = /^(?:export\s+)?([^=\s]+)\s*=\s*(.*)$/.exec(line);
    if (!match) throw bad('expected KEY=VALUE');
    const [, key = '', raw = ''] = match;
    if (!KEY.test(key)) throw bad(`"${key}" is not a variable name (letters, digits and _, not starting with a digit)`);
    variables.push({ key, value: dotenvValue(raw, bad) });
  }
  return variables;
}

function dotenvValue(raw: string, bad: (why: string) => ExecError): string {
  const quote = raw[0];
  if (quote === '"' || quote === "'") {
    const end = raw.indexOf(quote, 1);
    if (end < 0) throw bad(`unterminated ${quote} quote`);
    const rest = raw.slice(end + 1).trim();
    if (rest !== '' && !rest.startsWith('#')) throw bad('unexpected text after the quoted value');
    const inner = raw.slice(1, end);
    return quote === "'" ? inner : inner.replace(/\\([nrt"\\])/g, (_, escaped: string) => ({ n: '\n', r: '\r', t: '\t' })[escaped] ?? escaped);
  }
  // An unquoted value ends at a ` #` comment.
  return raw.replace(/\s+#.*$/, '').trim();
}

export async function readEnvFiles(files: readonly string[], cwd: string): Promise<PlainVariable[]> {
  const variables: PlainVariable[] = [];
  for (const file of files) {
    const text = await readFile(path.resolve(cwd, file), 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new ExecError(`--env-file ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
    });
    variables.push(...parseEnvFile(text, file));
  }
  return variables;
}

/**
 * The variables every job of the run gets whose values are known before it runs, for the image
 * names `--executor docker` checks first: the local ones that apply to every job (not
 * protected, not scoped to an environment, not files: a file's variable is its path), then the
 * pipeline's. `unknown`: the other local ones' names, which only a job settles.
 */
export function variablesKnownBeforeRun(local: readonly LocalVariable[], pipeline: readonly PlainVariable[]): { variables: PlainVariable[]; unknown: Set<string> } {
  const everyJob = local.filter((variable) => !variable.protected && !variable.file && variable.environmentScope === '*');
  const unknown = new Set(local.filter((variable) => !everyJob.includes(variable)).map((variable) => variable.key));
  for (const variable of pipeline) unknown.delete(variable.key);
  return { variables: [...everyJob.map(({ key, value }) => ({ key, value })), ...pipeline], unknown };
}

/** `.gantry/variables.yml` of the working tree; none when it does not exist. */
export async function readVariablesFile(root: string): Promise<LocalVariable[]> {
  const text = await readFile(path.join(root, VARIABLES_FILE), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  return text === null ? [] : parseVariablesFile(text);
}

export function parseVariablesFile(text: string): LocalVariable[] {
  return Object.entries(localMapping(text, VARIABLES_FILE, 'variable names to values')).map(([key, entry]) => localVariable(key, entry));
}

/**
 * A YAML file of `.gantry/` (`variables.yml`, `projects.yml`) as its top-level mapping (empty
 * for an empty file); a syntax error or another shape is a one-line error naming the file.
 */
export function localMapping(text: string, file: string, expected: string): Record<string, unknown> {
  const document = parseDocument(text);
  const [error] = document.errors;
  if (error) throw new ExecError(`${file}:${error.linePos?.[0].line ?? 1}: ${error.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '')}`);
  const content: unknown = document.toJS();
  if (content === null || content === undefined) return {};
  if (typeof content !== 'object' || Array.isArray(content)) throw new ExecError(`${file}: expected a mapping of ${expected}`);
  return content as Record<string, unknown>;
}

function localVariable(key: string, entry: unknown): LocalVariable {
  const bad = (why: string) => new ExecError(`${VARIABLES_FILE}: ${key}: ${why}`);
  if (!KEY.test(key)) throw bad('not a variable name (letters, digits and _, not starting with a digit)');
  const plain = { key, masked: false, protected: false, file: false, environmentScope: '*' };
  if (isScalar(entry)) return { ...plain, value: String(entry) };
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw bad('expected a value or {value, masked, protected, file, environment_scope}');
  const fields = entry as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((field) => !FLAGS.includes(field));
  if (unknown.length > 0) throw bad(`unknown field ${unknown.join(', ')} (known: ${FLAGS.join(', ')})`);
  if (!isScalar(fields.value)) throw bad('value must be a string, number or boolean');
  const flag = (name: string): boolean => {
    const value = fields[name] ?? false;
    if (typeof value !== 'boolean') throw bad(`${name} must be true or false`);
    return value;
  };
  const scope = fields.environment_scope ?? '*';
  if (typeof scope !== 'string') throw bad('environment_scope must be a string');
  return { key, value: String(fields.value), masked: flag('masked'), protected: flag('protected'), file: flag('file'), environmentScope: scope };
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** Later lists win, key by key: the env files, then `--variable`. */
export function mergedByKey(...lists: ReadonlyArray<readonly PlainVariable[]>): PlainVariable[] {
  const byKey = new Map<string, PlainVariable>();
  for (const variable of lists.flat()) {
    byKey.delete(variable.key);
    byKey.set(variable.key, variable);
  }
  return [...byKey.values()];
}
