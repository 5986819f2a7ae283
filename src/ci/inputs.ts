/**
 * `spec:inputs` (GitLab 15.11): a CI file's header declares inputs, `include:` gives their
 * values (`inputs:`), and `$[[ inputs.NAME ]]` in the file's keys and values is replaced by
 * them. A value that is one interpolation block alone keeps its type (array, number,
 * boolean); inside longer text it becomes text. A block may pass the value through functions
 * (`| expand_vars | truncate(0, 8)`, interpolation-functions.ts).
 */
import { UntrustedRegexp } from './expression/regexp.ts';
import { applyFunctions, type InterpolationVariables } from './interpolation-functions.ts';
import { isPlainObject, RubyFloat, type PlainObject } from './values.ts';

const TYPES = ['string', 'number', 'boolean', 'array'] as const;
type InputType = (typeof TYPES)[number];
type InputValue = string | number | boolean | unknown[];

const BLOCK = /\$\[\[\s*([^\]]*?)\s*\]\]/g;
const WHOLE_BLOCK = /^\$\[\[\s*([^\]]*?)\s*\]\]$/;
const INPUT_REFERENCE = /^inputs\.([^.\s]+)$/;
const MATRIX_REFERENCE = /^matrix\.[a-zA-Z0-9_-]+$/;

export type InputsOutcome = { ok: true; value: PlainObject } | { ok: false; error: string };

const NO_VARIABLES: InterpolationVariables = () => undefined;

/**
 * The file's content with its inputs in place, or the first error. `header` is the file's
 * header document (or undefined), `given` the `include:inputs` (or undefined), `variables`
 * what `expand_vars` may use.
 */
export function applyInputs(content: PlainObject, header: PlainObject | undefined, given: PlainObject | undefined, variables: InterpolationVariables = NO_VARIABLES): InputsOutcome {
  if (header === undefined) {
    if (given !== undefined && Object.keys(given).length > 0) {
      return { ok: false, error: 'Given inputs not defined in the `spec` section of the included configuration file' };
    }
    return { ok: true, value: content };
  }
  const resolved = resolveInputs(header, given ?? {});
  if (typeof resolved === 'string') return { ok: false, error: resolved };
  const errors: string[] = [];
  const value = interpolate(content, { inputs: resolved, variables }, errors);
  if (errors.length > 0) return { ok: false, error: errors[0] };
  return { ok: true, value: value as PlainObject };
}

/**
 * GitLab's `Ci::PipelineCreation::Inputs.parse_params` on a pipeline's given inputs: a text
 * that is JSON is its value (`'[1, 2]'` an array, `'42'` a number, `'true'` a boolean), as a
 * form sends every value as text; other values stay as given.
 */
export function parsePipelineInputs(given: Readonly<Record<string, unknown>>): PlainObject {
  const parsed: PlainObject = {};
  for (const [name, value] of Object.entries(given)) parsed[name] = typeof value === 'string' ? parsedJson(value) : value;
  return parsed;
}

/**
 * Inputs typed on a command line (`runner exec --input NAME=VALUE`): each text is read as the
 * type the header declares for it, as a form does: a `number` input's `3` is 3, a `boolean`'s
 * `true` true, an `array`'s JSON text its array, a `string`'s text itself (`1.0` stays `1.0`).
 * A text that cannot be that type is kept, so the check names the input and its type.
 */
export function inputsFromText(header: PlainObject | undefined, given: Readonly<Record<string, unknown>>): PlainObject {
  const spec = header?.spec;
  const declared = isPlainObject(spec) && isPlainObject(spec.inputs) ? spec.inputs : {};
  const values: PlainObject = {};
  for (const [name, value] of Object.entries(given)) {
    const input = Object.hasOwn(declared, name) ? declared[name] : undefined;
    const type = isPlainObject(input) && typeof input.type === 'string' ? input.type : 'string';
    values[name] = typeof value === 'string' ? valueFromText(value, type) : value;
  }
  return values;
}

function valueFromText(text: string, type: string): unknown {
  if (type === 'number') {
    if (!NUMBER_TEXT.test(text)) return text;
    return /^[-+]?\d+$/.test(text) ? Number(text) : new RubyFloat(Number(text), text);
  }
  if (type === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  if (type === 'array') {
    const parsed = parsedJson(text);
    return Array.isArray(parsed) ? parsed : text;
  }
  return text;
}

const NUMBER_TEXT = /^[-+]?(\d+(\.\d+)?([eE][-+]?\d+)?)$/;

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function resolveInputs(header: PlainObject, given: PlainObject): Map<string, InputValue> | string {
  const spec = header.spec;
  const declared = isPlainObject(spec) && spec.inputs !== undefined && spec.inputs !== null ? spec.inputs : {};
  if (!isPlainObject(declared)) return 'header:spec:inputs config must be a hash';
  const unknown = Object.keys(given).filter((name) => !Object.hasOwn(declared, name));
  if (unknown.length > 0) return `unknown input arguments: ${unknown.join(', ')}`;
  const values = new Map<string, InputValue>();
  for (const [name, raw] of Object.entries(declared)) {
    const input = isPlainObject(raw) ? raw : {};
    const type = input.type ?? 'string';
    if (!TYPES.includes(type as InputType)) return `header:spec:inputs:${name} input type unknown value: ${String(type)}`;
    // GitLab's `actual_value`: a given null is not given.
    const value = (Object.hasOwn(given, name) ? given[name] : undefined) ?? input.default;
    if (value === undefined || value === null) return `\`${name}\` input: required value has not been provided`;
    if (!hasType(value, type as InputType)) return `\`${name}\` input: provided value is not a ${String(type)}`;
    if (Array.isArray(input.options) && !input.options.some((option) => option === value)) {
      return `\`${name}\` input: \`${String(value)}\` cannot be used because it is not in the list of allowed options`;
    }
    if (typeof input.regex === 'string' && typeof value === 'string' && !matches(input.regex, value)) {
      return `\`${name}\` input: provided value does not match required RegEx pattern`;
    }
    values.set(name, value as InputValue);
  }
  return values;
}

function hasType(value: unknown, type: InputType): boolean {
  if (type === 'array') return Array.isArray(value);
  if (type === 'number' && value instanceof RubyFloat) return true;
  return typeof value === type;
}

/** RE2, as GitLab checks `regex` (a pattern, or `/pattern/`). */
function matches(regex: string, value: string): boolean {
  const slashed = /^\/(.*)\/$/s.exec(regex);
  try {
    return UntrustedRegexp.compile(slashed ? slashed[1] : regex, '').test(value);
  } catch {
    return false;
  }
}

interface Scope {
  inputs: Map<string, InputValue>;
  variables: InterpolationVariables;
}

function interpolate(node: unknown, scope: Scope, errors: string[]): unknown {
  if (typeof node === 'string') return interpolateText(node, scope, errors);
  if (Array.isArray(node)) return node.map((item) => interpolate(item, scope, errors));
  if (isPlainObject(node)) {
    const out: PlainObject = {};
    for (const [key, value] of Object.entries(node)) {
      const newKey = interpolateText(key, scope, errors);
      out[typeof newKey === 'string' ? newKey : JSON.stringify(newKey)] = interpolate(value, scope, errors);
    }
    return out;
  }
  return node;
}

function interpolateText(text: string, scope: Scope, errors: string[]): unknown {
  if (!text.includes('$[[')) return text;
  const whole = WHOLE_BLOCK.exec(text);
  if (whole) return evaluate(whole[1], scope, errors) ?? text;
  return text.replace(BLOCK, (block, expression: string) => {
    const value = evaluate(expression, scope, errors);
    if (value === undefined) return block;
    if (value instanceof RubyFloat) return value.text;
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** A block's `inputs.NAME | function | ...`: the input's value through the functions. */
function evaluate(expression: string, scope: Scope, errors: string[]): InputValue | undefined {
  const [access = '', ...functions] = expression.split('|').map((part) => part.trim());
  // `$[[ matrix.KEY ]]` is the matrix context, resolved for each parallel:matrix instance later.
  if (MATRIX_REFERENCE.test(access) && functions.length === 0) return undefined;
  const reference = INPUT_REFERENCE.exec(access);
  const name = reference?.[1];
  if (name === undefined || !scope.inputs.has(name)) {
    errors.push(`unknown interpolation key: \`${name ?? access}\``);
    return undefined;
  }
  const value = scope.inputs.get(name) as InputValue;
  if (functions.length === 0) return value;
  const outcome = applyFunctions(value, functions, scope.variables);
  if (!outcome.ok) {
    errors.push(outcome.error);
    return undefined;
  }
  return outcome.value;
}
