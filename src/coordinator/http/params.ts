import { invalidParam, missingParam } from '../../shared/errors.ts';
import { MAX_INT32, MIN_INT32 } from '../../shared/record-ids.ts';
import type { ParamMap, ParamValue } from './querystring.ts';

/**
 * Typed access to a request's parameters (path, query and body merged, body winning),
 * answering GitLab's 400 bodies for missing or malformed values.
 */
export class Params {
  constructor(private readonly values: ParamMap) {}

  static merge(...sources: Array<ParamMap | undefined | null>): Params {
    const merged: ParamMap = Object.create(null) as ParamMap;
    for (const source of sources) {
      if (!source) continue;
      for (const [key, value] of Object.entries(source)) {
        if (value !== undefined) merged[key] = value;
      }
    }
    return new Params(merged);
  }

  has(name: string): boolean {
    return this.values[name] !== undefined;
  }

  raw(name: string): ParamValue | undefined {
    return this.values[name];
  }

  string(name: string): string | undefined {
    const value = this.values[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    throw invalidParam(name, 'is invalid');
  }

  requiredString(name: string): string {
    const value = this.string(name);
    if (value === undefined || value.trim() === '') throw missingParam(name);
    return value;
  }

  /** Present values must be non-empty strings. */
  nonEmptyString(name: string): string | undefined {
    const value = this.string(name);
    if (value !== undefined && value.trim() === '') throw invalidParam(name, 'is empty');
    return value;
  }

  /** An integer of the database's 32-bit columns (anything larger is invalid), within `bounds`. */
  int(name: string, bounds: { min?: number; max?: number } = {}): number | undefined {
    const value = this.values[name];
    if (value === undefined || value === null || value === '') return undefined;
    const parsed = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : NaN;
    if (!isInt32(parsed)) throw invalidParam(name, 'is invalid');
    if (bounds.min !== undefined && parsed < bounds.min) throw invalidParam(name, 'does not have a valid value');
    if (bounds.max !== undefined && parsed > bounds.max) throw invalidParam(name, 'does not have a valid value');
    return parsed;
  }

  requiredInt(name: string, bounds: { min?: number; max?: number } = {}): number {
    const value = this.int(name, bounds);
    if (value === undefined) throw missingParam(name);
    return value;
  }

  number(name: string): number | undefined {
    const value = this.values[name];
    if (value === undefined || value === null || value === '') return undefined;
    const parsed = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
    if (!Number.isFinite(parsed)) throw invalidParam(name, 'is invalid');
    return parsed;
  }

  bool(name: string): boolean | undefined {
    const value = this.values[name];
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value === 'boolean') return value;
    if (value === 1 || value === 0) return value === 1;
    if (typeof value === 'string') {
      const lowered = value.toLowerCase();
      if (lowered === 'true' || lowered === '1' || lowered === 't' || lowered === 'yes') return true;
      if (lowered === 'false' || lowered === '0' || lowered === 'f' || lowered === 'no') return false;
    }
    throw invalidParam(name, 'is invalid');
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(value)) throw invalidParam(name, 'does not have a valid value');
    return value as T;
  }

  /** `name[]=a&name[]=b`, a JSON array, or a comma-separated string. */
  stringArray(name: string): string[] | undefined {
    const value = this.values[name];
    if (value === undefined || value === null) return undefined;
    if (Array.isArray(value)) {
      return value.map((item) => {
        if (typeof item === 'string') return item;
        if (typeof item === 'number') return String(item);
        throw invalidParam(name, 'is invalid');
      });
    }
    if (typeof value === 'string') return value === '' ? [] : value.split(',').map((part) => part.trim());
    throw invalidParam(name, 'is invalid');
  }

  intArray(name: string): number[] | undefined {
    const items = this.stringArray(name);
    if (items === undefined) return undefined;
    return items.map((item) => {
      const parsed = /^-?\d+$/.test(item) ? Number(item) : NaN;
      if (!isInt32(parsed)) throw invalidParam(name, 'is invalid');
      return parsed;
    });
  }

  /** `name[key]=value` pairs (or a JSON object of strings). */
  hash(name: string): Record<string, string> | undefined {
    const value = this.values[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) throw invalidParam(name, 'is invalid');
    const out: Record<string, string> = {};
    for (const [key, item] of Object.entries(value)) {
      if (typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean') {
        throw invalidParam(name, 'is invalid');
      }
      out[key] = String(item);
    }
    return out;
  }

  /** ISO 8601 date-time; answers 400 for anything unparseable. */
  dateTime(name: string): string | undefined {
    const value = this.string(name);
    if (value === undefined || value === '') return undefined;
    const time = Date.parse(value);
    if (Number.isNaN(time)) throw invalidParam(name, 'is invalid');
    return new Date(time).toISOString();
  }

  /** YYYY-MM-DD. */
  date(name: string): string | undefined {
    const value = this.string(name);
    if (value === undefined || value === '') return undefined;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value))) throw invalidParam(name, 'is invalid');
    return value;
  }
}

function isInt32(value: number): boolean {
  return Number.isInteger(value) && value >= MIN_INT32 && value <= MAX_INT32;
}
