/** Helpers for the untyped values that come out of YAML, before they become typed definitions. */

/** A `!reference [a, b]` tag, kept as a marker until the reference pass resolves it. */
export class YamlReference {
  readonly path: readonly (string | null)[];
  /** The sequence's items as YAML typed them: GitLab takes a path of strings only (`[.a, 0]` is not valid). */
  readonly items: readonly unknown[];
  constructor(path: readonly (string | null)[], items: readonly unknown[] = path) {
    this.path = path;
    this.items = items;
  }

  get valid(): boolean {
    return this.items.length > 0 && this.items.every((item) => typeof item === 'string');
  }
}

/**
 * A YAML float whose Ruby text differs from JavaScript's (`1.0` is "1.0" in Ruby, "1" here;
 * `1.0e+20`). Kept apart so that a variable holding it reads as GitLab writes it; in JSON it
 * is its number. Floats that print alike stay plain numbers.
 */
export class RubyFloat {
  constructor(
    readonly value: number,
    readonly text: string,
  ) {}

  toJSON(): number {
    return this.value;
  }
}

export type PlainObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is PlainObject {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/**
 * GitLab's deep_merge: hashes merge key by key (the overlay wins), everything else
 * (arrays, scalars) is replaced. Never mutates its inputs, because YAML aliases share objects.
 */
export function deepMerge(base: PlainObject, overlay: PlainObject): PlainObject {
  const result: PlainObject = { ...base };
  for (const [key, value] of Object.entries(overlay)) {
    const existing = result[key];
    result[key] = isPlainObject(existing) && isPlainObject(value) ? deepMerge(existing, value) : value;
  }
  return result;
}

/** The YAML scalar as GitLab would see it in a string context (`1` → "1", `true` → "true"). */
export function scalarToString(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof RubyFloat) return value.text;
  return null;
}

/** Ruby's `to_json` rendering of a value, used inside some GitLab messages. */
export function rubyJson(value: unknown): string {
  return JSON.stringify(value);
}
