/**
 * Functions of an interpolation block (GitLab 16.3+): `$[[ inputs.NAME | f1 | f2 ]]`, at most
 * three, applied left to right to the input's value, each only to text:
 * - `expand_vars`: `$VAR`, `${VAR}` and `%VAR%` replaced by the pipeline's variables that
 *   `include` sees (predefined, instance, group, project and the run's); unknown ones stay
 *   as written, one level only (a value's own references are not expanded again); a masked
 *   variable is an error, so that its value never lands in the configuration.
 * - `truncate(offset, length)`: `length` characters from `offset` (Ruby's `text[offset, length]`:
 *   an offset past the end gives the empty text).
 * - `posix_escape`: the text as one word of a POSIX shell (Ruby's `Shellwords.shellescape`).
 * Each is linear in its input, which the file's size bounds.
 */
import { replaceVariableReferences, type IncludeVariable } from './include-variables.ts';

/** The variables `expand_vars` may use, by name (include-variables.ts). */
export type InterpolationVariables = (name: string) => IncludeVariable | undefined;

export const MAX_INTERPOLATION_FUNCTIONS = 3;

export type FunctionOutcome<T> = { ok: true; value: T } | { ok: false; error: string };

type Apply = (input: string, variables: InterpolationVariables) => FunctionOutcome<string>;

interface InterpolationFunction {
  name: string;
  /** The function's text in a block; its groups are the arguments. */
  pattern: RegExp;
  build(args: RegExpExecArray): Apply;
}

const FUNCTIONS: readonly InterpolationFunction[] = [
  { name: 'expand_vars', pattern: /^expand_vars$/, build: () => expandVars },
  {
    name: 'truncate',
    // GitLab's pattern leaves the closing parenthesis optional; so does this one.
    pattern: /^truncate\(\s*(\d+)\s*,\s*(\d+)\s*\)?$/,
    build: (args) => (input) => ({ ok: true, value: truncate(input, Number(args[1]), Number(args[2])) }),
  },
  { name: 'posix_escape', pattern: /^posix_escape$/, build: () => (input) => ({ ok: true, value: posixEscape(input) }) },
];

/** `value` through `functions` (their texts, trimmed), or the first error, worded as GitLab's. */
export function applyFunctions<T>(value: T, functions: readonly string[], variables: InterpolationVariables): FunctionOutcome<T | string> {
  if (functions.length > MAX_INTERPOLATION_FUNCTIONS) return { ok: false, error: 'too many functions in interpolation block' };
  const stack: Array<{ name: string; apply: Apply }> = [];
  for (const text of functions) {
    const found = FUNCTIONS.map((candidate) => ({ candidate, args: candidate.pattern.exec(text) })).find(({ args }) => args !== null);
    if (!found?.args) return { ok: false, error: `no function matching \`${text}\`: check that the function name, arguments, and types are correct` };
    stack.push({ name: found.candidate.name, apply: found.candidate.build(found.args) });
  }
  let current: T | string = value;
  for (const { name, apply } of stack) {
    if (typeof current !== 'string') return { ok: false, error: `error in \`${name}\` function: invalid input type: ${name} can only be used with string inputs` };
    const outcome = apply(current, variables);
    if (!outcome.ok) return { ok: false, error: `error in \`${name}\` function: ${outcome.error}` };
    current = outcome.value;
  }
  return { ok: true, value: current };
}

function expandVars(input: string, variables: InterpolationVariables): FunctionOutcome<string> {
  let masked = false;
  // GitLab's `expand_existing`: an unknown reference stays as written.
  const value = replaceVariableReferences(input, (name, reference) => {
    const variable = variables(name);
    if (variable === undefined) return reference;
    if (variable.masked) masked = true;
    return variable.value;
  });
  return masked ? { ok: false, error: 'variable expansion error: masked variables cannot be expanded' } : { ok: true, value };
}

/** By characters (code points), as Ruby counts a UTF-8 string. */
function truncate(input: string, offset: number, length: number): string {
  const characters = Array.from(input);
  if (offset > characters.length) return '';
  return characters.slice(offset, offset + length).join('');
}

/** Every character but `A-Za-z0-9_-.,:+/@` and newline backslash-escaped; a newline quoted; the empty text `''`. */
export function posixEscape(input: string): string {
  if (input === '') return "''";
  return input.replace(/[^A-Za-z0-9_\-.,:+/@\n]/gu, (character) => `\\${character}`).replace(/\n/g, "'\n'");
}
