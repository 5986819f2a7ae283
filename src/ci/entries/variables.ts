/** `variables:` — key to string or number; modern `{value, description, expand}` hashes too. */
import type { YamlVariable } from '../model.ts';
import { isPlainObject, scalarToString } from '../values.ts';
import type { EntryChecker } from './checker.ts';

const KEY_PATTERN = /^[A-Za-z0-9_]+$/;

export function readVariables(value: unknown, checker: EntryChecker): YamlVariable[] | null {
  if (value === null || value === undefined) return [];
  if (!isPlainObject(value)) {
    checker.configError('should be a hash of key value pairs');
    return null;
  }
  const variables: YamlVariable[] = [];
  for (const [key, raw] of Object.entries(value)) {
    const text = isPlainObject(raw) ? scalarToString(raw.value ?? '') : raw === null ? '' : scalarToString(raw);
    if (text === null || !KEY_PATTERN.test(key)) {
      checker.configError('should be a hash of key value pairs');
      return null;
    }
    // `expand: false` makes the variable raw, as GitLab does; anything else leaves it expanded.
    variables.push(isPlainObject(raw) && raw.expand === false ? { key, value: text, raw: true } : { key, value: text });
  }
  return variables;
}

/** Later lists win; the order is that of first appearance. */
export function mergeVariables(...lists: YamlVariable[][]): YamlVariable[] {
  const merged = new Map<string, YamlVariable>();
  for (const list of lists) for (const variable of list) merged.set(variable.key, variable);
  return [...merged.values()];
}
