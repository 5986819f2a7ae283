import { atLeastOneOf } from '../../shared/errors.ts';
import type { Params } from '../http/params.ts';

/**
 * Grape's `at_least_one_of`: an update route answers 400 when none of its parameters is
 * given (present counts, whatever the value), naming them all.
 */
export function requireAtLeastOne(params: Params, names: readonly string[]): void {
  if (!names.some((name) => params.has(name))) throw atLeastOneOf(names);
}

/** The same rule on a route's typed input: a parameter counts when the schema read a value for it. */
export function requireAtLeastOneOf(input: object, names: readonly string[]): void {
  const given = input as Record<string, unknown>;
  if (!names.some((name) => given[name] !== undefined)) throw atLeastOneOf(names);
}
