/** `artifacts` and `cache` entries. */
import type { ArtifactsDefinition } from '../model.ts';
import type { CacheConfig } from '../job-config.ts';
import { isValidExpireIn } from '../durations.ts';
import { isPlainObject, isStringArray, type PlainObject } from '../values.ts';
import type { EntryChecker } from './checker.ts';

const ARTIFACT_WHEN = ['on_success', 'on_failure', 'always'] as const;
type ArtifactWhen = (typeof ARTIFACT_WHEN)[number];

export function readArtifacts(value: unknown, checker: EntryChecker): ArtifactsDefinition | null | undefined {
  if (value === null) return null;
  const hash = checker.hash(value);
  if (!hash) return undefined;
  const allowed = ['name', 'untracked', 'paths', 'exclude', 'when', 'expire_in', 'reports', 'expose_as', 'public', 'access'];
  if (!checker.allowedKeys(hash, allowed)) return undefined;
  let valid = true;
  const name = typeof hash.name === 'string' ? hash.name : null;
  if (hash.name !== undefined && hash.name !== null && name === null) {
    checker.attributeError('name', 'should be a string');
    valid = false;
  }
  const untracked = checker.booleanAttribute(hash, 'untracked');
  const paths = checker.stringArrayAttribute(hash, 'paths');
  const exclude = checker.stringArrayAttribute(hash, 'exclude');
  if ((hash.untracked !== undefined && untracked === null) || (hash.paths !== undefined && paths === null)) valid = false;
  if (hash.exclude !== undefined && exclude === null) valid = false;
  const when = hash.when ?? 'on_success';
  if (!ARTIFACT_WHEN.includes(when as ArtifactWhen)) {
    if (typeof when !== 'string') checker.attributeError('when', 'should be a string');
    checker.attributeError('when', 'should be on_success, on_failure or always');
    valid = false;
  }
  // A duration is text: GitLab's check refuses a bare number.
  const expireIn = typeof hash.expire_in === 'string' ? hash.expire_in : null;
  if (hash.expire_in !== undefined && hash.expire_in !== null && (expireIn === null || !isValidExpireIn(expireIn))) {
    checker.attributeError('expire_in', 'should be a duration');
    valid = false;
  }
  if (!checkExposeAndAccess(hash, checker)) valid = false;
  // Not a hash is the artifacts entry's own error (GitLab checks its type before its reports entry).
  if (hash.reports !== undefined && hash.reports !== null && !isPlainObject(hash.reports)) {
    checker.attributeError('reports', 'should be a hash');
    return undefined;
  }
  const reports = readReports(hash.reports, checker.child('reports'));
  if (!valid || reports === null) return undefined;
  return {
    name,
    paths: paths ?? [],
    exclude: exclude ?? [],
    untracked: untracked ?? false,
    when: when as ArtifactWhen,
    expireIn,
    reports,
  };
}

const EXPOSE_AS = /^\w[-\w ]*$/;
const MAX_EXPOSE_AS = 100;
const ACCESS_LEVELS = ['none', 'developer', 'maintainer', 'all'];

/** `expose_as` (its paths listed, without `*`), `public` and `access` (one or the other), as GitLab's Artifacts entry checks them. */
function checkExposeAndAccess(hash: PlainObject, checker: EntryChecker): boolean {
  const problems: [string, string][] = [];
  const exposeAs = hash.expose_as;
  if (exposeAs !== undefined && exposeAs !== null) {
    if (typeof exposeAs !== 'string') problems.push(['expose_as', 'should be a string']);
    else if (exposeAs.length > MAX_EXPOSE_AS) problems.push(['expose_as', `is too long (maximum is ${MAX_EXPOSE_AS} characters)`]);
    else if (!EXPOSE_AS.test(exposeAs)) problems.push(['expose_as', "can contain only letters, digits, '-', '_' and spaces"]);
    if (!Array.isArray(hash.paths) || hash.paths.length === 0) problems.push(['paths', "can't be blank"]);
    else if (hash.paths.some((path) => typeof path === 'string' && path.includes('*'))) problems.push(['paths', "can't contain '*' when used with 'expose_as'"]);
  }
  if (hash.public !== undefined && hash.public !== null && typeof hash.public !== 'boolean') problems.push(['public', 'should be a boolean value']);
  if (hash.access !== undefined && hash.access !== null && !ACCESS_LEVELS.includes(hash.access as string)) {
    problems.push(['access', `should be one of: ${ACCESS_LEVELS.join(', ')}`]);
  }
  for (const [attribute, message] of problems) checker.attributeError(attribute, message);
  if (hash.public !== undefined && hash.access !== undefined) {
    const together = Object.keys(hash).filter((key) => key === 'public' || key === 'access');
    checker.configError(`these keys cannot be used together: ${together.join(', ')}`);
    return false;
  }
  return problems.length === 0;
}

/** Report types GitLab's Reports entry knows. */
const REPORT_TYPES = [
  'junit', 'codequality', 'sast', 'secret_detection', 'dependency_scanning', 'container_scanning', 'dast',
  'performance', 'browser_performance', 'load_performance', 'license_scanning', 'metrics', 'lsif', 'dotenv',
  'terraform', 'accessibility', 'coverage_fuzzing', 'api_fuzzing', 'cluster_image_scanning', 'requirements',
  'requirements_v2', 'coverage_report', 'cyclonedx', 'annotations', 'repository_xray',
];
const COVERAGE_FORMATS = ['cobertura', 'jacoco'];

/** Report type to paths; `coverage_report: {coverage_format, path}` becomes its format's report, as GitLab's runner payload names it. */
function readReports(value: unknown, checker: EntryChecker): Record<string, string[]> | null {
  if (value === undefined || value === null) return {};
  const hash = checker.hash(value);
  if (!hash) return null;
  if (!checker.allowedKeys(hash, REPORT_TYPES)) return null;
  const reports: Record<string, string[]> = {};
  for (const [type, paths] of Object.entries(hash)) {
    if (paths === null) continue;
    if (type === 'coverage_report') {
      const coverage = readCoverageReport(paths, checker.child('coverage_report'));
      if (!coverage) return null;
      reports[coverage.format] = [coverage.path];
    } else if (typeof paths === 'string') reports[type] = [paths];
    else if (isStringArray(paths)) reports[type] = paths;
    else {
      checker.attributeError(type, 'should be an array of strings or a string');
      return null;
    }
  }
  return reports;
}

function readCoverageReport(value: unknown, checker: EntryChecker): { format: string; path: string } | null {
  const hash = checker.hash(value);
  if (!hash || !checker.allowedKeys(hash, ['coverage_format', 'path'])) return null;
  const format = hash.coverage_format;
  if (format === undefined || format === null || format === '') checker.attributeError('coverage_format', "can't be blank");
  else if (!COVERAGE_FORMATS.includes(format as string)) {
    checker.attributeError('coverage_format', `must be one of supported formats: ${COVERAGE_FORMATS.join(', ')}.`);
  }
  if (hash.path === undefined || hash.path === null || hash.path === '') checker.attributeError('path', "can't be blank");
  else if (typeof hash.path !== 'string') checker.attributeError('path', 'should be a string');
  if (typeof format !== 'string' || !COVERAGE_FORMATS.includes(format) || typeof hash.path !== 'string' || hash.path === '') return null;
  return { format, path: hash.path };
}

const CACHE_POLICIES = ['pull', 'push', 'pull-push'] as const;
const MAX_FALLBACK_KEYS = 5;
type CachePolicy = (typeof CACHE_POLICIES)[number];

/** A cache's `paths` and `fallback_keys` are entries of their own in GitLab: `cache:paths config should be ...`. */
function stringListEntry(hash: PlainObject, key: string, checker: EntryChecker): string[] | null {
  const value = hash[key];
  if (value === undefined || value === null) return null;
  if (isStringArray(value)) return value;
  checker.child(key).configError('should be an array of strings');
  return null;
}

/** A cache's `untracked` is an entry too: `cache:untracked config should be a boolean value`. */
function booleanEntry(hash: PlainObject, key: string, checker: EntryChecker): boolean | null {
  const value = hash[key];
  if (value === undefined || value === null || typeof value === 'boolean') return value ?? null;
  checker.child(key).configError('should be a boolean value');
  return null;
}

/** `policy: $POLICY`: a variable the job's payload resolves (GitLab's pattern, `$` and a name). */
function isPolicyVariable(policy: unknown): policy is `$${string}` {
  return typeof policy === 'string' && /^\$\w{1,255}$/.test(policy);
}

/** A hash, or (modern) an array of up to four hashes. */
export function readCaches(value: unknown, checker: EntryChecker): CacheConfig[] | null {
  if (value === null || value === undefined) return [];
  const entries = Array.isArray(value) ? value : [value];
  if (entries.length > 4) {
    checker.configError('no more than 4 caches can be created');
    return null;
  }
  const caches: CacheConfig[] = [];
  for (const entry of entries) {
    const cache = readCache(entry, checker);
    if (!cache) return null;
    caches.push(cache);
  }
  return caches;
}

function readCache(value: unknown, checker: EntryChecker): CacheConfig | null {
  const hash = checker.hash(value);
  if (!hash) return null;
  if (!checker.allowedKeys(hash, ['key', 'untracked', 'paths', 'policy', 'when', 'fallback_keys', 'unprotect'])) return null;
  const key = readCacheKey(hash.key, checker.child('key'));
  const untracked = booleanEntry(hash, 'untracked', checker);
  const paths = stringListEntry(hash, 'paths', checker);
  const policy = hash.policy ?? 'pull-push';
  let valid = key !== null && !(hash.untracked !== undefined && untracked === null) && !(hash.paths !== undefined && paths === null);
  if (!CACHE_POLICIES.includes(policy as CachePolicy) && !isPolicyVariable(policy)) {
    if (typeof policy !== 'string') checker.attributeError('policy', 'should be a string');
    checker.attributeError('policy', 'should be a variable or one of: pull-push, push, pull');
    valid = false;
  }
  const when = hash.when ?? 'on_success';
  if (!ARTIFACT_WHEN.includes(when as ArtifactWhen)) {
    if (typeof when !== 'string') checker.attributeError('when', 'should be a string');
    checker.attributeError('when', 'should be one of: on_success, on_failure, always');
    valid = false;
  }
  const fallbackKeys = stringListEntry(hash, 'fallback_keys', checker);
  if (hash.fallback_keys !== undefined && hash.fallback_keys !== null && fallbackKeys === null) valid = false;
  else if (fallbackKeys && fallbackKeys.length > MAX_FALLBACK_KEYS) {
    // GitLab's wording, "to many" included.
    checker.attributeError('fallback_keys', `has to many entries (maximum ${MAX_FALLBACK_KEYS})`);
    valid = false;
  }
  if (!valid || key === null) return null;
  return {
    key,
    untracked: untracked ?? false,
    paths: paths ?? [],
    policy: policy as CacheConfig['policy'],
    when: when as ArtifactWhen,
    ...(fallbackKeys && fallbackKeys.length > 0 ? { fallbackKeys } : {}),
  };
}

function readCacheKey(value: unknown, checker: EntryChecker): CacheConfig['key'] | null {
  if (value === undefined || value === null) return 'default';
  if (isPlainObject(value)) {
    if (!checker.allowedKeys(value, ['files', 'files_commits', 'prefix'])) return null;
    if (('files' in value) === ('files_commits' in value)) {
      checker.configError('must use exactly one of these keys: files, files_commits');
      return null;
    }
    const attribute = 'files' in value ? 'files' : 'files_commits';
    const files = value[attribute];
    // GitLab's Files entry: one or two paths, leading slashes dropped.
    const filesChecker = checker.child(attribute);
    if (!isStringArray(files)) filesChecker.configError('should be an array of strings');
    else if (files.length < 1) filesChecker.configError('requires at least 1 item');
    else if (files.length > 2) filesChecker.configError('has too many items (maximum is 2)');
    if (!isStringArray(files) || files.length < 1 || files.length > 2) return null;
    const prefix = typeof value.prefix === 'string' ? value.prefix : null;
    if (value.prefix !== undefined && value.prefix !== null && prefix === null) {
      checker.child('prefix').configError('should be a string or symbol');
      return null;
    }
    return { files: files.map((file) => file.replace(/^\/+/, '')), prefix };
  }
  // GitLab's key is a string (or a Ruby symbol) or a hash: a number or a boolean is refused.
  const key = typeof value === 'string' ? value : null;
  if (key === null) {
    checker.sink.error(`${checker.location} should be a hash, a string or a symbol`.toLowerCase(), checker.path);
    return null;
  }
  // GitLab checks the key URI-decoded once (`%2F`, `%2e%2E`, `.%2E` too).
  const decoded = percentDecoded(key);
  if (decoded.includes('/')) {
    checker.configError('cannot contain the "/" character');
    return null;
  }
  if (decoded === '.' || decoded === '..') {
    checker.configError('cannot be "." or ".."');
    return null;
  }
  return key;
}

/** `%XX` escapes decoded once, as Ruby's CGI.unescape (a malformed escape stays as written). */
function percentDecoded(text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}
