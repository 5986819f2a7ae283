/**
 * `id_tokens` (GitLab 15.7): the OIDC ID tokens a job gets, one job variable each, named as the
 * entry, `NAME: { aud: string | [strings] }`. In a job or `default:`, a job's own replacing the
 * default's. Checked as GitLab's IdToken entries: `aud` required and the only key.
 */
import type { JobIdTokens } from '../model.ts';
import { isPlainObject, isStringArray } from '../values.ts';
import type { EntryChecker } from './checker.ts';

/** The tokens read, in the order written; null when absent; undefined when invalid (reported to `checker`). */
export function readIdTokens(value: unknown, checker: EntryChecker): JobIdTokens | null | undefined {
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value)) {
    checker.configError('should be a hash');
    return undefined;
  }
  const errors = checker.sink.errors.length;
  const tokens: JobIdTokens = {};
  for (const [name, entry] of Object.entries(value)) {
    const aud = readIdToken(entry ?? {}, checker.child(name));
    if (aud !== undefined) tokens[name] = { aud };
  }
  return checker.sink.errors.length > errors ? undefined : tokens;
}

function readIdToken(entry: unknown, checker: EntryChecker): string | string[] | undefined {
  // GitLab's key checks read a value that is not a hash as one without keys.
  const hash = isPlainObject(entry) ? entry : {};
  if (!('aud' in hash)) checker.configError('missing required keys: aud');
  checker.allowedKeys(hash, ['aud']);
  const aud = hash.aud;
  if (typeof aud === 'string' || isStringArray(aud)) return aud;
  checker.attributeError('aud', 'should be an array of strings or a string');
  return undefined;
}
