/**
 * Small validation vocabulary shared by the entry validators. Messages follow GitLab's
 * shapes: `<location> config <message>` for a whole entry, `<location> <attribute> <message>`
 * for an attribute (underscores read as spaces, as Rails humanises them), lowercased whole
 * as GitLab's entry validator writes them (`jobs:build config contains unknown keys: foo`).
 */
import type { DiagnosticSink, KeyPath } from '../diagnostics.ts';
import { isPlainObject, isStringArray, scalarToString, type PlainObject } from '../values.ts';

export class EntryChecker {
  constructor(
    readonly sink: DiagnosticSink,
    /** GitLab location, `jobs:rspec:artifacts`. */
    readonly location: string,
    /** Key path of the entry in the merged configuration. */
    readonly path: KeyPath,
  ) {}

  child(key: string, pathKey: string | number = key): EntryChecker {
    return new EntryChecker(this.sink, `${this.location}:${key}`, [...this.path, pathKey]);
  }

  configError(message: string, at: KeyPath = this.path): void {
    this.sink.error(`${this.location} config ${message}`.toLowerCase(), at);
  }

  attributeError(attribute: string, message: string): void {
    this.sink.error(`${this.location} ${attribute.replace(/_/g, ' ')} ${message}`.toLowerCase(), [...this.path, attribute]);
  }

  /** Reports unknown keys; returns true when all keys are allowed. */
  allowedKeys(value: PlainObject, allowed: readonly string[]): boolean {
    const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
    if (unknown.length === 0) return true;
    this.configError(`contains unknown keys: ${unknown.join(', ')}`);
    return false;
  }

  hash(value: unknown, message = 'should be a hash'): PlainObject | null {
    if (isPlainObject(value)) return value;
    this.configError(message);
    return null;
  }

  stringArrayAttribute(value: PlainObject, attribute: string): string[] | null {
    const item = value[attribute];
    if (item === undefined || item === null) return null;
    if (isStringArray(item)) return item;
    this.attributeError(attribute, 'should be an array of strings');
    return null;
  }

  booleanAttribute(value: PlainObject, attribute: string): boolean | null {
    const item = value[attribute];
    if (item === undefined || item === null) return null;
    if (typeof item === 'boolean') return item;
    this.attributeError(attribute, 'should be a boolean value');
    return null;
  }

  stringAttribute(value: PlainObject, attribute: string): string | null {
    const item = value[attribute];
    if (item === undefined || item === null) return null;
    const text = scalarToString(item);
    if (text !== null && typeof item !== 'boolean') return text;
    this.attributeError(attribute, 'should be a string');
    return null;
  }
}

/**
 * Scripts: a string or an array of strings, where (modern GitLab) nested arrays up to
 * 10 levels are flattened. A number is refused, as GitLab's string check does.
 */
export function readScript(value: unknown, checker: EntryChecker): string[] | null {
  if (typeof value === 'string') return [value];
  const lines: string[] = [];
  const flatten = (items: unknown[], depth: number): boolean => {
    for (const item of items) {
      if (Array.isArray(item) && depth < 10) {
        if (!flatten(item, depth + 1)) return false;
      } else if (typeof item === 'string') {
        lines.push(item);
      } else {
        return false;
      }
    }
    return true;
  };
  if (Array.isArray(value) && flatten(value, 1)) return lines;
  checker.configError('should be an array of strings or a string');
  return null;
}
