import { atLeastOneOf, invalidParams } from '../../shared/errors.ts';

/**
 * Grape's `at_least_one_of` on a route's typed input: an update route answers 400 when none
 * of its parameters is given (a parameter counts when the schema read a value for it), naming them all.
 */
export function requireAtLeastOneOf(input: object, names: readonly string[]): void {
  const given = input as Record<string, unknown>;
  if (!names.some((name) => given[name] !== undefined)) throw atLeastOneOf(names);
}

/** Grape's `all_or_none_of`: some of `names` given without the others answers 400 naming them all. */
export function requireAllOrNoneOf(input: object, names: readonly string[]): void {
  const given = input as Record<string, unknown>;
  const count = names.filter((name) => given[name] !== undefined).length;
  if (count > 0 && count < names.length) throw invalidParams([{ name: names.join(', '), problem: 'provide all or none of parameters' }]);
}
