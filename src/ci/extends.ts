/**
 * `extends`: a job (or hidden key) inherits from one or more other top-level hashes.
 * Bases are deep-merged in order, then the job itself on top ("closest scope wins").
 */
import type { DiagnosticSink } from './diagnostics.ts';
import { deepMerge, isPlainObject, isStringArray, type PlainObject } from './values.ts';

export function expandExtends(config: PlainObject, maxDepth: number, sink: DiagnosticSink): PlainObject {
  const resolved = new Map<string, PlainObject>();
  const result: PlainObject = { ...config };
  for (const key of Object.keys(config)) {
    const value = config[key];
    if (!isPlainObject(value) || !('extends' in value)) continue;
    const extended = resolveEntry(key, config, resolved, [], maxDepth, sink);
    if (extended === null) return result;
    result[key] = extended;
  }
  return result;
}

function resolveEntry(
  key: string,
  config: PlainObject,
  resolved: Map<string, PlainObject>,
  chain: string[],
  maxDepth: number,
  sink: DiagnosticSink,
): PlainObject | null {
  const done = resolved.get(key);
  if (done) return done;
  const value = config[key];
  if (!isPlainObject(value)) return null;
  if (!('extends' in value)) return value;

  const parents = typeof value.extends === 'string' ? [value.extends] : value.extends;
  if (!isStringArray(parents)) {
    sink.error(`${key}: invalid extends key`, [key, 'extends']);
    return null;
  }
  const unknown = parents.filter((parent) => !(parent in config));
  if (unknown.length > 0) {
    sink.error(`${key}: unknown keys in \`extends\` (${unknown.join(', ')})`, [key, 'extends']);
    return null;
  }
  const invalid = parents.filter((parent) => !isPlainObject(config[parent]));
  if (invalid.length > 0) {
    sink.error(`${key}: invalid base hashes in \`extends\` (${invalid.join(', ')})`, [key, 'extends']);
    return null;
  }
  if (chain.includes(key)) {
    sink.error(`${chain[0]}: circular dependency detected in \`extends\``, [chain[0] ?? key, 'extends']);
    return null;
  }
  if (chain.length >= maxDepth) {
    sink.error(`${chain[0]}: nesting too deep in \`extends\``, [chain[0] ?? key, 'extends']);
    return null;
  }

  let merged: PlainObject = {};
  for (const parent of parents) {
    const base = resolveEntry(parent, config, resolved, [...chain, key], maxDepth, sink);
    if (base === null) return null;
    merged = deepMerge(merged, base);
  }
  const { extends: _ignored, ...own } = value;
  const result = deepMerge(merged, own);
  delete result.extends;
  resolved.set(key, result);
  return result;
}
