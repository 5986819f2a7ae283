/**
 * `extends`: a job (or hidden key) inherits from one or more other top-level hashes.
 * Bases are deep-merged in order, then the job itself on top ("closest scope wins").
 */
import type { DiagnosticSink } from './diagnostics.ts';
import { deepMerge, isPlainObject, rubyJson, scalarToString, type PlainObject } from './values.ts';

/**
 * A resolved entry: its merged hash, and the extending entries below it in GitLab's
 * depth-first order, each deeper than all before it (`depth` 0 is the entry itself). The
 * first of them past the nesting limit is the one GitLab names, from wherever the walk starts.
 */
interface Resolved {
  value: PlainObject;
  deepest: { depth: number; key: string }[];
}

export function expandExtends(config: PlainObject, maxDepth: number, sink: DiagnosticSink): PlainObject {
  const resolver = new ExtendsResolver(config, maxDepth, sink);
  const result: PlainObject = { ...config };
  for (const key of Object.keys(config)) {
    const value = config[key];
    if (!isPlainObject(value) || !('extends' in value)) continue;
    const extended = resolver.resolve(key, []);
    if (extended === null) return result;
    result[key] = extended.value;
  }
  return result;
}

class ExtendsResolver {
  private readonly resolved = new Map<string, Resolved>();

  constructor(
    private readonly config: PlainObject,
    private readonly maxDepth: number,
    private readonly sink: DiagnosticSink,
  ) {}

  /** `ancestors`: the entries whose extends led here, as GitLab counts them for "nesting too deep". */
  resolve(key: string, ancestors: readonly string[]): Resolved | null {
    const value = this.config[key] as PlainObject;
    const done = this.resolved.get(key);
    if (done) return this.withinDepth(done, ancestors.length) ? done : null;

    const parents = extendsKeys(value.extends);
    const unknown = parents.filter((parent) => !(parent in this.config));
    if (unknown.length > 0) return this.fail(`${key}: unknown keys in \`extends\` (${unknown.join(', ')})`, key);
    const invalid = parents.filter((parent) => !isPlainObject(this.config[parent]));
    if (invalid.length > 0) return this.fail(`${key}: invalid base hashes in \`extends\` (${invalid.join(', ')})`, key);
    if (ancestors.length > this.maxDepth) return this.fail(`${key}: nesting too deep in \`extends\``, key);
    if (ancestors.includes(key)) return this.fail(`${key}: circular dependency detected in \`extends\``, key);

    let merged: PlainObject = {};
    const deepest = [{ depth: 0, key }];
    for (const parent of parents) {
      const base = this.config[parent] as PlainObject;
      if (!('extends' in base)) {
        merged = deepMerge(merged, base);
        continue;
      }
      const resolvedBase = this.resolve(parent, [...ancestors, key]);
      if (resolvedBase === null) return null;
      merged = deepMerge(merged, resolvedBase.value);
      for (const entry of resolvedBase.deepest) {
        const last = deepest[deepest.length - 1];
        if (last && entry.depth + 1 > last.depth) deepest.push({ depth: entry.depth + 1, key: entry.key });
      }
    }
    const { extends: _ignored, ...own } = value;
    const result: Resolved = { value: deepMerge(merged, own), deepest };
    delete result.value.extends;
    this.resolved.set(key, result);
    return result;
  }

  /** An entry resolved before, reached again at another depth: GitLab walks it again, so its nesting counts anew. */
  private withinDepth(done: Resolved, depth: number): boolean {
    const tooDeep = done.deepest.find((entry) => depth + entry.depth > this.maxDepth);
    if (!tooDeep) return true;
    this.fail(`${tooDeep.key}: nesting too deep in \`extends\``, tooDeep.key);
    return false;
  }

  private fail(message: string, key: string): null {
    this.sink.error(message, [key, 'extends']);
    return null;
  }
}

/** GitLab reads `extends` as `Array(value)` of strings: a scalar is one name, null none. */
function extendsKeys(value: unknown): string[] {
  const items = Array.isArray(value) ? value : value === null || value === undefined ? [] : [value];
  return items.map((item) => scalarToString(item) ?? rubyJson(item));
}
