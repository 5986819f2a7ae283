import { Type, type TEnumValue, type TSchema } from '#deps/typebox';
import { MAX_INT32, MIN_INT32 } from '../../shared/record-ids.ts';
import type { ParamMap, ParamValue } from './querystring.ts';

/**
 * Route parameter schemas the way GitLab's API (grape) reads parameters. A schema is plain
 * JSON Schema built with typebox, so it types the handler's input and documents the route
 * in the OpenAPI answer; `coerceParams` reads a request part by it with grape's leniency
 * (booleans as `true/false/1/0/t/f/yes/no`, integers as digit strings, arrays as `name[]=…`,
 * a JSON array or a comma list, hashes as `name[key]=…`) and grape's messages.
 */
export const Param = {
  string: (options: { description?: string; minLength?: number; maxLength?: number } = {}) => Type.String(options),
  /** An integer of the database's 32-bit columns (ids, levels, limits): a larger one is invalid, never sent to SQL. */
  integer: (options: { description?: string; minimum?: number; maximum?: number } = {}) => Type.Integer({ format: 'int32', ...options }),
  /** Any integer JavaScript holds exactly, for values kept outside integer columns (settings are a JSON document). */
  wideInteger: (options: { description?: string; minimum?: number; maximum?: number } = {}) => Type.Integer({ format: 'int64', ...options }),
  number: (options: { description?: string } = {}) => Type.Number(options),
  boolean: (options: { description?: string } = {}) => Type.Boolean(options),
  oneOf: <const Values extends TEnumValue[]>(values: readonly [...Values], options: { description?: string } = {}) => Type.Enum(values, options),
  strings: (options: { description?: string } = {}) => Type.Array(Type.String(), options),
  integers: (options: { description?: string } = {}) => Type.Array(Type.Integer({ format: 'int32' }), options),
  hash: (options: { description?: string } = {}) => Type.Record(Type.String(), Type.String(), options),
  /** `YYYY-MM-DD`. */
  date: (options: { description?: string } = {}) => Type.String({ ...options, format: 'date' }),
  /** ISO 8601; normalised to UTC with milliseconds. */
  dateTime: (options: { description?: string } = {}) => Type.String({ ...options, format: 'date-time' }),
  /** Also an explicit JSON `null` (kept as null; otherwise null reads as absent). */
  nullable: <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]),
};

/** What was wrong with one parameter, in grape's words. */
export interface ParamProblem {
  name: string;
  problem: 'is missing' | 'is invalid' | 'does not have a valid value';
}

export type CoercionResult = { ok: true; value: ParamMap } | { ok: false; problems: ParamProblem[] };

/** The JSON Schema keywords this reader understands (what `Param` and `Type.Object` produce). */
interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
  enum?: readonly unknown[];
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  /** Only as Param.nullable makes it: the value's schema and `{type: 'null'}`. */
  anyOf?: JsonSchema[];
}

class Problems {
  readonly list: ParamProblem[] = [];
  add(name: string, problem: ParamProblem['problem']): undefined {
    this.list.push({ name, problem });
    return undefined;
  }
}

/**
 * Reads `input` by an object schema. Unknown parameters are dropped, as grape drops
 * undeclared ones; `''` counts as absent for every type but strings.
 */
export function coerceParams(schema: TSchema, input: unknown): CoercionResult {
  const objectSchema = schema as JsonSchema;
  const source = isParamMap(input) ? input : ({} as ParamMap);
  const problems = new Problems();
  const value = readObject(objectSchema, source, '', problems);
  return problems.list.length > 0 ? { ok: false, problems: problems.list } : { ok: true, value };
}

function readObject(schema: JsonSchema, source: ParamMap, prefix: string, problems: Problems): ParamMap {
  const out: ParamMap = Object.create(null) as ParamMap;
  const required = new Set(schema.required ?? []);
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const name = prefix === '' ? key : `${prefix}[${key}]`;
    const raw = source[key];
    if (raw === null && acceptsNull(property)) {
      out[key] = null;
      continue;
    }
    const before = problems.list.length;
    const read = raw === undefined || raw === null ? undefined : readValue(property, raw, name, problems);
    if (read === undefined) {
      // A blank required string already reported `is missing` (minLength): say it once.
      const alreadyReported = problems.list.length > before;
      if (required.has(key) && !alreadyReported) problems.add(name, 'is missing');
      continue;
    }
    out[key] = read;
  }
  return out;
}

function acceptsNull(schema: JsonSchema): boolean {
  return schema.anyOf?.some((member) => member.type === 'null') === true;
}

function readValue(schema: JsonSchema, raw: ParamValue, name: string, problems: Problems): ParamValue | undefined {
  const valueSchema = schema.anyOf?.find((member) => member.type !== 'null');
  if (valueSchema) return readValue(valueSchema, raw, name, problems);
  if (schema.enum) return readEnum(schema.enum, raw, name, problems);
  switch (schema.type) {
    case 'string':
      return readString(schema, raw, name, problems);
    case 'integer':
      return readInteger(schema, raw, name, problems);
    case 'number':
      return readNumber(raw, name, problems);
    case 'boolean':
      return readBoolean(raw, name, problems);
    case 'array':
      return readArray(schema, raw, name, problems);
    case 'object':
      if (!isParamMap(raw)) return problems.add(name, 'is invalid');
      return schema.patternProperties ? readHash(schema, raw, name, problems) : readObject(schema, raw, name, problems);
    default:
      return raw;
  }
}

function readString(schema: JsonSchema, raw: ParamValue, name: string, problems: Problems): string | undefined {
  const text = scalarText(raw);
  if (text === undefined) return problems.add(name, 'is invalid');
  if (schema.format === 'date') {
    if (text === '') return undefined;
    const day = calendarDay(text);
    return day ?? problems.add(name, 'is invalid');
  }
  if (schema.format === 'date-time') {
    if (text === '') return undefined;
    const time = Date.parse(text);
    if (Number.isNaN(time)) return problems.add(name, 'is invalid');
    return new Date(time).toISOString();
  }
  if (schema.minLength !== undefined && text.trim().length < schema.minLength) return problems.add(name, 'is missing');
  if (schema.maxLength !== undefined && text.length > schema.maxLength) return problems.add(name, 'is invalid');
  return text;
}

/** A day or a timestamp on it (`2020-01-01T00:00:00Z`), as grape's `Date` reads it: the day as written, whatever the zone; a day the calendar lacks is invalid. */
const DAY_WITH_OPTIONAL_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function calendarDay(text: string): string | undefined {
  const match = DAY_WITH_OPTIONAL_TIME.exec(text.trim());
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const daysInMonth = month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
  if (day < 1 || day > daysInMonth) return undefined;
  return `${match[1]}-${match[2]}-${match[3]}`;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function readInteger(schema: JsonSchema, raw: ParamValue, name: string, problems: Problems): number | undefined {
  if (raw === '') return undefined;
  const parsed = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(parsed)) return problems.add(name, 'is invalid');
  if (schema.format === 'int32' && (parsed < MIN_INT32 || parsed > MAX_INT32)) return problems.add(name, 'is invalid');
  if (schema.minimum !== undefined && parsed < schema.minimum) return problems.add(name, 'does not have a valid value');
  if (schema.maximum !== undefined && parsed > schema.maximum) return problems.add(name, 'does not have a valid value');
  return parsed;
}

function readNumber(raw: ParamValue, name: string, problems: Problems): number | undefined {
  if (raw === '') return undefined;
  const parsed = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  return Number.isFinite(parsed) ? parsed : problems.add(name, 'is invalid');
}

const TRUE_WORDS = new Set(['true', '1', 't', 'yes']);
const FALSE_WORDS = new Set(['false', '0', 'f', 'no']);

function readBoolean(raw: ParamValue, name: string, problems: Problems): boolean | undefined {
  if (raw === '') return undefined;
  if (typeof raw === 'boolean') return raw;
  if (raw === 1 || raw === 0) return raw === 1;
  if (typeof raw === 'string') {
    const lowered = raw.toLowerCase();
    if (TRUE_WORDS.has(lowered)) return true;
    if (FALSE_WORDS.has(lowered)) return false;
  }
  return problems.add(name, 'is invalid');
}

function readEnum(allowed: readonly unknown[], raw: ParamValue, name: string, problems: Problems): string | undefined {
  const text = scalarText(raw);
  if (text === undefined) return problems.add(name, 'is invalid');
  return allowed.includes(text) ? text : problems.add(name, 'does not have a valid value');
}

function readArray(schema: JsonSchema, raw: ParamValue, name: string, problems: Problems): ParamValue[] | undefined {
  const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? (raw === '' ? [] : raw.split(',').map((part) => part.trim())) : null;
  if (items === null) return problems.add(name, 'is invalid');
  const itemSchema = schema.items ?? {};
  const out: ParamValue[] = [];
  for (const item of items) {
    const before = problems.list.length;
    const read = item === null ? undefined : readValue(itemSchema, item, name, problems);
    if (problems.list.length > before) return undefined;
    if (read !== undefined) out.push(read);
  }
  return out;
}

function readHash(schema: JsonSchema, raw: ParamMap, name: string, problems: Problems): ParamMap | undefined {
  const valueSchema = Object.values(schema.patternProperties ?? {})[0] ?? { type: 'string' };
  const out: ParamMap = Object.create(null) as ParamMap;
  for (const [key, item] of Object.entries(raw)) {
    if (item === null || item === undefined) continue;
    const read = readValue(valueSchema, item, name, problems);
    if (read === undefined) return undefined;
    out[key] = read;
  }
  return out;
}

function scalarText(raw: ParamValue): string | undefined {
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  return undefined;
}

function isParamMap(value: unknown): value is ParamMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}
