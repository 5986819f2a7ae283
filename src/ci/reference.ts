/**
 * `!reference [key, sub, ...]`: replaced by the value at that path of the (extended)
 * configuration. References may point at values that contain references, up to a depth.
 * A reference inside a list whose target is a list is spliced in, as GitLab's entries flatten
 * such lists — except in scripts, whose entry flattens nested lists itself and refuses more
 * than 10 levels: there the list stays nested, so that its depth counts as in GitLab.
 */
import type { DiagnosticSink, KeyPath } from './diagnostics.ts';
import { isPlainObject, YamlReference, type PlainObject } from './values.ts';

export function resolveReferences(config: PlainObject, maxDepth: number, sink: DiagnosticSink): PlainObject {
  const resolver = new ReferenceResolver(config, maxDepth, sink);
  const result = resolver.resolve(config, [], 0);
  return isPlainObject(result) ? result : config;
}

class ReferenceResolver {
  private failed = false;
  constructor(
    private readonly root: PlainObject,
    private readonly maxDepth: number,
    private readonly sink: DiagnosticSink,
  ) {}

  resolve(value: unknown, at: KeyPath, depth: number): unknown {
    if (this.failed) return value;
    if (value instanceof YamlReference) return this.follow(value, at, depth);
    if (Array.isArray(value)) {
      const items: unknown[] = [];
      value.forEach((item, index) => {
        const resolved = this.resolve(item, [...at, index], depth);
        if (item instanceof YamlReference && Array.isArray(resolved) && !inScript(at)) items.push(...resolved);
        else items.push(resolved);
      });
      return items;
    }
    if (isPlainObject(value)) {
      if (!containsReference(value)) return value;
      const result: PlainObject = {};
      for (const [key, child] of Object.entries(value)) result[key] = this.resolve(child, [...at, key], depth);
      return result;
    }
    return value;
  }

  private follow(reference: YamlReference, at: KeyPath, depth: number): unknown {
    const shown = `!reference [${reference.items.map(rubyInspect).join(', ')}]`;
    if (!reference.valid) {
      this.fail(`${shown} is not valid`, at);
      return null;
    }
    if (depth >= this.maxDepth) {
      this.fail(`${shown} is part of a circular chain`, at);
      return null;
    }
    let target: unknown = this.root;
    for (const part of reference.path) {
      if (part === null || !isPlainObject(target) || !(part in target)) {
        this.fail(`${shown} could not be found`, at);
        return null;
      }
      target = target[part];
    }
    return this.resolve(target, at, depth + 1);
  }

  private fail(message: string, at: KeyPath): void {
    this.failed = true;
    this.sink.error(message, at);
  }
}

const SCRIPT_KEYS = new Set<string | number>(['script', 'before_script', 'after_script', 'pre_get_sources_script']);

function inScript(at: KeyPath): boolean {
  return at.some((key) => SCRIPT_KEYS.has(key));
}

/** An item as Ruby's `inspect` writes it in GitLab's messages: `".a"`, `0`, `nil`, `["x"]`, `{"k"=>"v"}`. */
function rubyInspect(item: unknown): string {
  if (item === null || item === undefined) return 'nil';
  if (typeof item === 'string') return JSON.stringify(item);
  if (typeof item === 'number' || typeof item === 'boolean') return String(item);
  if (Array.isArray(item)) return `[${item.map(rubyInspect).join(', ')}]`;
  if (isPlainObject(item)) return `{${Object.entries(item).map(([key, value]) => `${JSON.stringify(key)}=>${rubyInspect(value)}`).join(', ')}}`;
  const node = item as { toJSON?: () => unknown };
  return typeof node.toJSON === 'function' ? rubyInspect(node.toJSON()) : String(item);
}

function containsReference(value: unknown): boolean {
  if (value instanceof YamlReference) return true;
  if (Array.isArray(value)) return value.some(containsReference);
  if (isPlainObject(value)) return Object.values(value).some(containsReference);
  return false;
}
