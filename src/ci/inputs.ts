/**
 * `spec:inputs` (GitLab 15.11): a CI file's header declares inputs, `include:` gives their
 * values (`inputs:`), and `$[[ inputs.NAME ]]` in the file's keys and values is replaced by
 * them. A value that is one interpolation block alone keeps its type (array, number,
 * boolean); inside longer text it becomes text. Interpolation functions (`| expand_vars`)
 * are not supported here: a block with one is an error.
 */
import { UntrustedRegexp } from './expression/regexp.ts';
import { isPlainObject, type PlainObject } from './values.ts';

const TYPES = ['string', 'number', 'boolean', 'array'] as const;
type InputType = (typeof TYPES)[number];
type InputValue = string | number | boolean | unknown[];

const BLOCK = /\$\[\[\s*([^\]]*?)\s*\]\]/g;
const WHOLE_BLOCK = /^\$\[\[\s*([^\]]*?)\s*\]\]$/;
const INPUT_REFERENCE = /^inputs\.([\w-]+)$/;

export type InputsOutcome = { ok: true; value: PlainObject } | { ok: false; error: string };

/**
 * The file's content with its inputs in place, or the first error. `header` is the file's
 * header document (or undefined), `given` the `include:inputs` (or undefined).
 */
export function applyInputs(content: PlainObject, header: PlainObject | undefined, given: PlainObject | undefined): InputsOutcome {
  if (header === undefined) {
    if (given !== undefined && Object.keys(given).length > 0) {
      return { ok: false, error: 'Given inputs not defined in the `spec` section of the included configuration file' };
    }
    return { ok: true, value: content };
  }
  const resolved = resolveInputs(header, given ?? {});
  if (typeof resolved === 'string') return { ok: false, error: resolved };
  const errors: string[] = [];
  const value = interpolate(content, resolved, errors);
  if (errors.length > 0) return { ok: false, error: errors[0] };
  return { ok: true, value: value as PlainObject };
}

function resolveInputs(header: PlainObject, given: PlainObject): Map<string, InputValue> | string {
  const spec = header.spec;
  const declared = isPlainObject(spec) && spec.inputs !== undefined && spec.inputs !== null ? spec.inputs : {};
  if (!isPlainObject(declared)) return 'header:spec:inputs config must be a hash';
  const unknown = Object.keys(given).filter((name) => !(name in declared));
  if (unknown.length > 0) return `unknown input arguments: ${unknown.join(', ')}`;
  const values = new Map<string, InputValue>();
  for (const [name, raw] of Object.entries(declared)) {
    const input = isPlainObject(raw) ? raw : {};
    const type = input.type ?? 'string';
    if (!TYPES.includes(type as InputType)) return `header:spec:inputs:${name} input type unknown value: ${String(type)}`;
    const value = name in given ? given[name] : input.default;
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

function interpolate(node: unknown, inputs: Map<string, InputValue>, errors: string[]): unknown {
  if (typeof node === 'string') return interpolateText(node, inputs, errors);
  if (Array.isArray(node)) return node.map((item) => interpolate(item, inputs, errors));
  if (isPlainObject(node)) {
    const out: PlainObject = {};
    for (const [key, value] of Object.entries(node)) {
      const newKey = interpolateText(key, inputs, errors);
      out[typeof newKey === 'string' ? newKey : JSON.stringify(newKey)] = interpolate(value, inputs, errors);
    }
    return out;
  }
  return node;
}

function interpolateText(text: string, inputs: Map<string, InputValue>, errors: string[]): unknown {
  if (!text.includes('$[[')) return text;
  const whole = WHOLE_BLOCK.exec(text);
  if (whole) return lookup(whole[1], inputs, errors) ?? text;
  return text.replace(BLOCK, (block, expression: string) => {
    const value = lookup(expression, inputs, errors);
    if (value === undefined) return block;
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

function lookup(expression: string, inputs: Map<string, InputValue>, errors: string[]): InputValue | undefined {
  if (expression.includes('|')) {
    errors.push(`interpolation functions are not supported: \`${expression}\``);
    return undefined;
  }
  const reference = INPUT_REFERENCE.exec(expression);
  const name = reference?.[1];
  if (name === undefined || !inputs.has(name)) {
    errors.push(`unknown interpolation key: \`${name ?? expression}\``);
    return undefined;
  }
  return inputs.get(name);
}
