/** A job rule's `changes` and `exists` clauses and its delay, checked as GitLab's Rules::Rule entries check them. */
import { parseDuration } from '../durations.ts';
import { isPlainObject, isStringArray, type PlainObject } from '../values.ts';
import type { ChangesClause } from '../job-config.ts';
import type { EntryChecker } from './checker.ts';

const MAX_CLAUSE_PATHS = 50;
const ONE_WEEK_SECONDS = 7 * 86_400;

/** A list of at most 50 paths (GitLab's `has too many entries`), else null after an error. */
function clausePaths(paths: unknown, checker: EntryChecker, report: (message: string) => void): string[] | null {
  if (!isStringArray(paths)) {
    report('should be an array of strings');
    return null;
  }
  if (paths.length > MAX_CLAUSE_PATHS) {
    checker.configError(`has too many entries (maximum ${MAX_CLAUSE_PATHS})`);
    return null;
  }
  return paths;
}

/** `rules:changes`: a list of paths, or `{paths, compare_to}`. */
export function readChangesClause(value: unknown, checker: EntryChecker): ChangesClause | null {
  if (Array.isArray(value)) {
    const paths = clausePaths(value, checker, (message) => checker.configError(message));
    return paths && { paths, compareTo: null };
  }
  if (!isPlainObject(value)) {
    checker.sink.error(`${checker.location} should be an array or a hash`.toLowerCase(), checker.path);
    return null;
  }
  if (!checker.allowedKeys(value, ['paths', 'compare_to'])) return null;
  if (value.paths === undefined || value.paths === null) {
    checker.configError('missing required keys: paths');
    return null;
  }
  const compareTo = value.compare_to ?? null;
  if (compareTo !== null && typeof compareTo !== 'string') {
    checker.attributeError('compare_to', 'should be a string');
    return null;
  }
  const paths = clausePaths(value.paths, checker, (message) => checker.attributeError('paths', message));
  return paths && { paths, compareTo };
}

/** `rules:exists`: a path, a list of paths, or `{paths, project, ref}` (another project's files are not read: its paths are this project's). */
export function readExistsClause(value: unknown, checker: EntryChecker): string[] | null {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return clausePaths(value, checker, (message) => checker.configError(message));
  if (!isPlainObject(value)) {
    checker.sink.error(`${checker.location} should be a string, an array of strings, or a hash`.toLowerCase(), checker.path);
    return null;
  }
  if (!checker.allowedKeys(value, ['paths', 'project', 'ref'])) return null;
  for (const key of ['project', 'ref']) {
    if (value[key] !== undefined && value[key] !== null && typeof value[key] !== 'string') {
      checker.attributeError(key, 'should be a string');
      return null;
    }
  }
  if (value.paths === undefined || value.paths === null) return [];
  return clausePaths(value.paths, checker, (message) => checker.attributeError('paths', message));
}

/**
 * A job rule's `start_in` goes with `when: delayed` only (the key itself, even written as null,
 * as GitLab's disallowed-keys check reads it), and then is a duration of at most a week.
 */
export function checkRuleDelay(value: PlainObject, checker: EntryChecker): boolean {
  const startIn = value.start_in;
  if (value.when !== 'delayed') {
    if (!('start_in' in value)) return true;
    checker.configError('contains disallowed keys: start_in');
    return false;
  }
  if (startIn === undefined || startIn === null || startIn === '') {
    checker.attributeError('start_in', "can't be blank");
    return false;
  }
  const seconds = typeof startIn === 'string' ? parseDuration(startIn) : null;
  if (seconds === null) {
    checker.attributeError('start_in', 'should be a duration');
    return false;
  }
  if (seconds > ONE_WEEK_SECONDS) {
    checker.attributeError('start_in', 'should not exceed the limit');
    return false;
  }
  return true;
}
