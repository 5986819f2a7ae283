import { atLeastOneOf } from '../../shared/errors.ts';

/**
 * Grape's `at_least_one_of` on a route's typed input: an update route answers 400 when none
 * of its parameters is given (a parameter counts when the schema read a value for it), naming them all.
 */
export function requireAtLeastOneOf(input: object, names: readonly string[]): void {
  const given = input as Record<string, unknown>;
  if (!names.some((name) => given[name] !== undefined)) throw atLeastOneOf(names);
}
