/**
 * `pages` and `publish` (GitLab 17.x): which jobs are Pages jobs and the directory they
 * publish, added to their artifacts as GitLab adds it. No Pages site is deployed here: the
 * keys are checked and the directory is uploaded with the job's artifacts.
 */
import type { ArtifactsDefinition } from '../model.ts';
import { isValidExpireIn } from '../durations.ts';
import { isPlainObject, type PlainObject } from '../values.ts';
import type { EntryChecker } from './checker.ts';

const DEFAULT_PUBLISH = 'public';
const PAGES_KEYS = ['path_prefix', 'expire_in', 'publish'];

/**
 * The job's artifacts with its Pages directory in their paths (a Pages job), as they are
 * (any other job), or undefined after an error.
 */
export function withPagesArtifacts(
  name: string,
  hash: PlainObject,
  artifacts: ArtifactsDefinition | null,
  checker: EntryChecker,
): ArtifactsDefinition | null | undefined {
  const pages = readPages(hash.pages, checker.child('pages'));
  if (pages === undefined) return undefined;
  if (hash.publish !== undefined && hash.publish !== null && typeof hash.publish !== 'string') {
    checker.child('publish').configError('should be a string');
    return undefined;
  }
  const publish = typeof hash.publish === 'string' ? hash.publish : null;
  // A `pages:` hash or `true` makes a Pages job; so does the name `pages` unless `pages: false`.
  const pagesJob = pages === true || (isPlainObject(pages) && Object.keys(pages).length > 0) || (name === 'pages' && pages !== false);
  if (!pagesJob) {
    if (publish === null) return artifacts;
    checker.attributeError('publish', 'can only be used within a `pages` job');
    return undefined;
  }
  const nestedPublish = isPlainObject(pages) && typeof pages.publish === 'string' ? pages.publish : null;
  if (nestedPublish !== null && publish !== null) {
    checker.sink.error(`${name} job: use either pages:publish or pages:pages:publish`, checker.path);
    return undefined;
  }
  const directory = nestedPublish ?? publish ?? DEFAULT_PUBLISH;
  const base: ArtifactsDefinition = artifacts ?? { name: null, paths: [], exclude: [], untracked: false, when: 'on_success', expireIn: null, reports: {} };
  return base.paths.includes(directory) ? base : { ...base, paths: [...base.paths, directory] };
}

/** `pages:` is a boolean or a hash of `path_prefix`, `expire_in` and `publish` (null: absent). */
function readPages(value: unknown, checker: EntryChecker): boolean | PlainObject | null | undefined {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value;
  if (!isPlainObject(value)) {
    checker.configError('should be a hash or a boolean value');
    return undefined;
  }
  if (!checker.allowedKeys(value, PAGES_KEYS)) return undefined;
  for (const key of ['path_prefix', 'publish']) {
    if (value[key] !== undefined && value[key] !== null && typeof value[key] !== 'string') {
      checker.attributeError(key, 'should be a string');
      return undefined;
    }
  }
  const expireIn = value.expire_in;
  // A `$VARIABLE` is allowed: it is read when the site is deployed.
  if (expireIn !== undefined && expireIn !== null && (typeof expireIn !== 'string' || !(expireIn.startsWith('$') || isValidExpireIn(expireIn)))) {
    checker.attributeError('expire_in', 'should be a duration');
    return undefined;
  }
  return value;
}
