import { atLeastOneOf } from '../../shared/errors.ts';
import type { Params } from '../http/params.ts';

/**
 * Grape's `at_least_one_of`: an update route answers 400 when none of its parameters is
 * given (present counts, whatever the value), naming them all.
 */
export function requireAtLeastOne(params: Params, names: readonly string[]): void {
  if (!names.some((name) => params.has(name))) throw atLeastOneOf(names);
}

/** The same rule on a route's validated input: a parameter counts when present (null included). */
export function requireAtLeastOneOf(input: Readonly<Record<string, unknown>>, names: readonly string[]): void {
  if (!names.some((name) => input[name] !== undefined)) throw atLeastOneOf(names);
}
