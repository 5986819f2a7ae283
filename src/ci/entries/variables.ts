/** `variables:` — key to string or number; modern `{value, description, expand}` hashes too. */
import type { YamlVariable } from '../model.ts';
import { isPlainObject, isStringArray, scalarToString, type PlainObject } from '../values.ts';
import type { EntryChecker } from './checker.ts';

const KEY_PATTERN = /^[A-Za-z0-9_]+$/;

/** What a variable's hash may hold where it is written (GitLab's `allowed_value_data`); elsewhere (rules, services) none. */
export const GLOBAL_VARIABLE_DATA: readonly string[] = ['value', 'description', 'expand', 'options'];
export const JOB_VARIABLE_DATA: readonly string[] = ['value', 'expand'];

export function readVariables(value: unknown, checker: EntryChecker, allowedData: readonly string[] = []): YamlVariable[] | null {
  if (value === null || value === undefined) return [];
  if (!isPlainObject(value)) {
    checker.configError('should be a hash of key value pairs');
    return null;
  }
  const variables: YamlVariable[] = [];
  for (const [key, written] of Object.entries(value)) {
    // GitLab reads each value as `config || {}`: no value, and `false` too, is an empty hash.
    const raw = written === null || written === false ? {} : written;
    if (Array.isArray(raw)) {
      // GitLab's Variable entry words this one without a location.
      checker.sink.error('variable definition must be either a string or a hash', [...checker.path, key]);
      return null;
    }
    const text = isPlainObject(raw) ? scalarToString(raw.value ?? '') : scalarToString(raw);
    if (text === null || !KEY_PATTERN.test(key)) {
      checker.configError('should be a hash of key value pairs');
      return null;
    }
    if (isPlainObject(raw) && !variableDataAccepted(raw, allowedData, checker.child(key))) return null;
    // `expand: false` makes the variable raw, as GitLab does; anything else leaves it expanded.
    variables.push(isPlainObject(raw) && raw.expand === false ? { key, value: text, raw: true } : { key, value: text });
  }
  return variables;
}

function variableDataAccepted(raw: PlainObject, allowedData: readonly string[], checker: EntryChecker): boolean {
  if (allowedData.length === 0) {
    checker.configError('must be a string');
    return false;
  }
  const extra = Object.keys(raw).filter((name) => !allowedData.includes(name));
  if (extra.length > 0) {
    checker.configError(`uses invalid data keys: ${extra.join(', ')}`);
    return false;
  }
  const options = raw.options;
  if (options === undefined || options === null) return true;
  if (!isStringArray(options)) checker.configError('options should be an array of strings');
  else if (!options.includes(raw.value as string)) checker.configError('value must be present in options');
  else return true;
  return false;
}

/** Later lists win; the order is that of first appearance. */
export function mergeVariables(...lists: YamlVariable[][]): YamlVariable[] {
  const merged = new Map<string, YamlVariable>();
  for (const list of lists) for (const variable of list) merged.set(variable.key, variable);
  return [...merged.values()];
}
