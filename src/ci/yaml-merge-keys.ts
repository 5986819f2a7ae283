/**
 * YAML merge keys (`<<`) as Ruby's YAML (Psych) applies them, which is what GitLab reads:
 * a map's keys are taken in the order written and a later one wins, whether it is a plain
 * key or a merge. So `stage: a` followed by `<<: *t` takes the template's stage, and of two
 * `<<` keys the second wins. (The YAML 1.1 merge rule, which the yaml library follows, lets
 * explicit keys win wherever they stand, and the first of several merges.) Inside one
 * `<<: [*a, *b]` list the earlier map wins, as in both.
 *
 * The loader marks each merge key before the document becomes a value (so duplicate `<<`
 * keys survive), and `applyMergeKeys` then folds them in.
 */
import { isPlainObject, type PlainObject } from './values.ts';

const MARK = '\u0000<<';
const STRING_TAG = 'tag:yaml.org,2002:str';

/** Whether a map key is a merge key: `<<` not tagged `!!str` (quoted or not, as in Psych). */
export function isMergeKey(value: unknown, tag: string | undefined): boolean {
  return value === '<<' && tag !== STRING_TAG;
}

/** The unique key a merge key is renamed to; `listed`: its value is written as a sequence. */
export function mergeKeyMark(index: number, listed: boolean): string {
  return `${MARK}${listed ? 'list' : 'map'}:${index}`;
}

/** The value with every marked merge key folded into its map (shared values stay shared). */
export function applyMergeKeys(value: unknown): unknown {
  return fold(value, new Map());
}

function fold(value: unknown, done: Map<object, unknown>): unknown {
  if (Array.isArray(value)) {
    const seen = done.get(value);
    if (seen !== undefined) return seen;
    const items: unknown[] = [];
    done.set(value, items);
    for (const item of value as unknown[]) items.push(fold(item, done));
    return items;
  }
  if (!isPlainObject(value)) return value;
  const seen = done.get(value);
  if (seen !== undefined) return seen;
  const result: PlainObject = {};
  done.set(value, result);
  for (const [key, child] of Object.entries(value)) {
    const folded = fold(child, done);
    if (!key.startsWith(MARK)) {
      define(result, key, folded);
      continue;
    }
    const source = mergeSource(folded, key.startsWith(`${MARK}list:`));
    if (source === null) define(result, '<<', folded);
    else for (const [sourceKey, sourceValue] of Object.entries(source)) define(result, sourceKey, sourceValue);
  }
  return result;
}

/**
 * What a merge key adds: its map, or for a written list of maps their union (earlier wins).
 * Anything else (a scalar, an alias of a list, a list holding a non-map) is no merge: Psych
 * keeps it as an ordinary `<<` key.
 */
function mergeSource(value: unknown, listed: boolean): PlainObject | null {
  if (isPlainObject(value)) return value;
  if (!listed || !Array.isArray(value) || !value.every((item) => isPlainObject(item))) return null;
  const union: PlainObject = {};
  for (const item of [...(value as PlainObject[])].reverse()) {
    for (const [key, child] of Object.entries(item)) define(union, key, child);
  }
  return union;
}

/** Sets an own key (also `__proto__`) without going through a setter; an existing key keeps its place. */
function define(target: PlainObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
