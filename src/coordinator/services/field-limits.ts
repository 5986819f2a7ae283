import { validationFailed } from '../../shared/errors.ts';

/**
 * A resource's text limits: parameter name → the most characters it may hold. Each resource
 * keeps its table next to its input parsing (project-attributes.ts, users-input.ts,
 * groups-validation.ts, ...); the numbers are GitLab's model validations where GitLab has
 * one, and a documented choice where its column is unbounded (see the README's "Limits").
 */
export type FieldLimits = Readonly<Record<string, number>>;

/** Values to check against a table: only fields the table knows. */
export type FieldValues<L extends FieldLimits> = Readonly<Partial<Record<keyof L & string, string | null | undefined>>>;

/** GitLab's `Gitlab::Database::MAX_TEXT_SIZE_LIMIT` (release descriptions, notes); also our commit and tag messages. */
export const MAX_TEXT_SIZE = 1_000_000;

export function tooLongMessage(maximum: number): string {
  return `is too long (maximum is ${maximum} characters)`;
}

/**
 * Whether `value` has more than `maximum` characters, counted as Ruby does (code points, so an
 * emoji is one), without copying a huge string: UTF-16 length bounds the count both ways.
 */
export function exceedsLength(value: string, maximum: number): boolean {
  if (value.length <= maximum) return false;
  if (value.length > maximum * 2) return true;
  let count = 0;
  for (const _character of value) {
    count += 1;
    if (count > maximum) return true;
  }
  return false;
}

/** `{field: ["is too long (maximum is N characters)"]}` for each given value over its limit. */
export function lengthErrors<L extends FieldLimits>(limits: L, values: FieldValues<L>): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const [field, value] of Object.entries(values) as Array<[string, string | null | undefined]>) {
    const maximum = limits[field];
    if (maximum !== undefined && typeof value === 'string' && exceedsLength(value, maximum)) errors[field] = [tooLongMessage(maximum)];
  }
  return errors;
}

/** 400 `{"message":{field:["is too long (maximum is N characters)"]}}` when any given value is over its limit. */
export function checkLengths<L extends FieldLimits>(limits: L, values: FieldValues<L>): void {
  const errors = lengthErrors(limits, values);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}
