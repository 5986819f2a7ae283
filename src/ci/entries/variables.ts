/** `variables:` — key to string or number; modern `{value, description}` hashes too. */
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
    variables.push({ key, value: text });
  }
  return variables;
}

/** Later lists win; the order is that of first appearance. */
export function mergeVariables(...lists: YamlVariable[][]): YamlVariable[] {
  const merged = new Map<string, string>();
  for (const list of lists) for (const variable of list) merged.set(variable.key, variable.value);
  return [...merged].map(([key, value]) => ({ key, value }));
}
