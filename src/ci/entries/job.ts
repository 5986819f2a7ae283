/** One job entry: allowed keys, inherited defaults, then each keyword's validator. */
import { parseDuration, timeoutProblem } from '../durations.ts';
import type { JobConfig } from '../job-config.ts';
import type { JobWhen, YamlVariable } from '../model.ts';
import { isPlainObject, isStringArray, type PlainObject } from '../values.ts';
import { readArtifacts, readCaches } from './artifacts-cache.ts';
import { EntryChecker, readScript } from './checker.ts';
import { readCoverage, readEnvironment, readParallel, readRetry } from './environment-retry.ts';
import { readHooks } from './hooks.ts';
import { readIdTokens } from './id-tokens.ts';
import { readRelease } from './release.ts';
import { withPagesArtifacts } from './pages.ts';
import { readImage, readServices } from './image-services.ts';
import { readPolicy, readRules } from './policies.ts';
import { readJobNeeds } from './needs.ts';
import { JOB_VARIABLE_DATA, mergeVariables, readVariables } from './variables.ts';
import type { DiagnosticSink } from '../diagnostics.ts';

export const JOB_KEYS = [
  'script', 'stage', 'type', 'image', 'services', 'before_script', 'after_script', 'variables',
  'only', 'except', 'rules', 'tags', 'allow_failure', 'when', 'start_in', 'dependencies', 'needs',
  'artifacts', 'cache', 'environment', 'coverage', 'retry', 'parallel', 'timeout', 'interruptible',
  'resource_group', 'inherit', 'extends', 'manual_confirmation', 'hooks', 'release',
  'id_tokens', 'pages', 'publish',
] as const;

/** Keys `default:` (and, for the first five, the top level) can give every job. */
export const DEFAULTABLE_KEYS = [
  'before_script', 'image', 'services', 'after_script', 'cache',
  'interruptible', 'timeout', 'retry', 'tags', 'artifacts', 'hooks', 'id_tokens',
] as const;

const JOB_WHEN: readonly JobWhen[] = ['on_success', 'on_failure', 'always', 'manual', 'delayed'];
const ONE_WEEK = 7 * 86_400;
const MAX_TAGS = 50;

export interface JobInputs {
  name: string;
  value: unknown;
  /** Validated default values by key (from `default:` or the top level). */
  defaults: PlainObject;
  globalVariables: YamlVariable[];
  maxExpressionTokens: number;
}

export function readJob(inputs: JobInputs, sink: DiagnosticSink): JobConfig | null {
  const { name } = inputs;
  const checker = new EntryChecker(sink, `jobs:${name}`, [name]);
  const own = checker.hash(inputs.value);
  if (!own) return null;
  // Unknown keys do not stop the other checks: GitLab reports them all together.
  const knownKeys = checker.allowedKeys(own, JOB_KEYS);
  const inherit = readInherit(own.inherit, checker.child('inherit'));
  if (!inherit) return null;

  const hash: PlainObject = { ...own };
  for (const key of DEFAULTABLE_KEYS) {
    // A key written empty (`image:`) is unspecified, as GitLab reads it: the default applies.
    const unspecified = !(key in hash) || hash[key] === null;
    if (unspecified && key in inputs.defaults && inherit.defaults(key)) hash[key] = inputs.defaults[key];
  }
  const errorsBefore = sink.errors.length;
  const job = readJobKeys(name, hash, checker, inputs);
  const inherited = inputs.globalVariables.filter((variable) => inherit.variables(variable.key));
  if (!job || !knownKeys || sink.errors.length > errorsBefore) return null;
  return { ...job, variables: mergeVariables(inherited, job.variables) };
}

function readJobKeys(name: string, hash: PlainObject, checker: EntryChecker, inputs: JobInputs): JobConfig | null {
  checkRulesClash(hash, checker);
  if (hash.script === undefined || hash.script === null) {
    checker.sink.error(`jobs:${name} script can't be blank`, [name]);
    return null;
  }
  // GitLab's presence check: an empty list or a blank string is no script either.
  if ((Array.isArray(hash.script) && hash.script.length === 0) || (typeof hash.script === 'string' && hash.script.trim() === '')) {
    checker.sink.error(`jobs:${name} script can't be blank`, [name, 'script']);
    return null;
  }
  const script = readScript(hash.script, checker.child('script'));
  const beforeScript = hash.before_script === undefined || hash.before_script === null ? [] : readScript(hash.before_script, checker.child('before_script'));
  const afterScript = hash.after_script === undefined || hash.after_script === null ? [] : readScript(hash.after_script, checker.child('after_script'));
  const stageValue = hash.stage ?? hash.type ?? 'test';
  if (typeof stageValue !== 'string') checker.child(hash.stage === undefined ? 'type' : 'stage').configError('should be a string');

  const when = readWhen(hash, checker);
  const startIn = readStartIn(hash, when, checker);
  const { allowFailure, allowFailureExitCodes } = readAllowFailure(hash.allow_failure, checker);
  const tags = hash.tags === undefined || hash.tags === null ? [] : hash.tags;
  checkTags(tags, checker.child('tags'));
  const dependencies = hash.dependencies === undefined || hash.dependencies === null ? null : hash.dependencies;
  if (dependencies !== null && !isStringArray(dependencies)) checker.attributeError('dependencies', 'should be an array of strings');
  const timeoutError = hash.timeout === undefined || hash.timeout === null ? null : timeoutProblem(hash.timeout);
  if (timeoutError) checker.child('timeout').configError(timeoutError);
  const timeout = hash.timeout === undefined || hash.timeout === null || timeoutError ? null : parseDuration(hash.timeout);
  // `interruptible` is an entry of its own in GitLab (`jobs:x:interruptible config ...`).
  const interruptible = typeof hash.interruptible === 'boolean' ? hash.interruptible : null;
  if (hash.interruptible !== undefined && hash.interruptible !== null && interruptible === null) checker.child('interruptible').configError('should be a boolean value');
  // `manual_confirmation` (GitLab 17.1) only words the UI's confirmation dialog: checked, not kept.
  if (hash.manual_confirmation !== undefined && hash.manual_confirmation !== null && typeof hash.manual_confirmation !== 'string') {
    checker.attributeError('manual_confirmation', 'should be a string');
  }
  const resourceGroup = readResourceGroup(hash.resource_group, checker);
  const hooks = readHooks(hash.hooks, checker.child('hooks'));
  const release = readRelease(hash.release, checker.child('release'));
  const idTokens = readIdTokens(hash.id_tokens, checker.child('id_tokens'));
  const tokens = inputs.maxExpressionTokens;
  const artifacts = hash.artifacts === undefined ? null : readArtifacts(hash.artifacts, checker.child('artifacts'));
  const needs = hash.needs === undefined || hash.needs === null ? null : readJobNeeds(hash.needs, checker.child('needs'));

  const job = {
    name,
    stage: typeof stageValue === 'string' ? stageValue : 'test',
    script,
    beforeScript,
    afterScript,
    image: hash.image === undefined || hash.image === null ? null : readImage(hash.image, checker.child('image')),
    services: hash.services === undefined || hash.services === null ? [] : readServices(hash.services, checker.child('services')),
    variables: readVariables(hash.variables, checker.child('variables'), JOB_VARIABLE_DATA),
    cache: readCaches(hash.cache, checker.child('cache')),
    artifacts: artifacts === undefined ? undefined : withPagesArtifacts(name, hash, artifacts, checker),
    environment: hash.environment === undefined ? null : readEnvironment(hash.environment, checker.child('environment')),
    coverage: readCoverage(hash.coverage, checker.child('coverage')),
    retry: readRetry(hash.retry, checker.child('retry')),
    timeout,
    interruptible,
    ...(hooks ? { hooks } : {}),
    ...(release ? { release } : {}),
    ...(idTokens ? { idTokens } : {}),
    resourceGroup,
    tags: isStringArray(tags) ? tags : [],
    when,
    startIn,
    allowFailure,
    allowFailureExitCodes,
    needs: needs && needs.jobs,
    ...(needs && needs.crossPipeline.length > 0 ? { crossPipelineNeeds: needs.crossPipeline } : {}),
    dependencies: isStringArray(dependencies) ? dependencies : null,
    only: readPolicy(hash.only, checker.child('only'), tokens),
    except: readPolicy(hash.except, checker.child('except'), tokens),
    rules: readRules(hash.rules, checker.child('rules'), tokens, 'job'),
    parallel: readParallel(hash.parallel, checker.child('parallel')),
    trigger: null,
  };
  const { script: s, beforeScript: b, afterScript: a, variables: v, cache: c, retry: r, services: sv } = job;
  if (!s || !b || !a || !v || !c || !r || !sv) return null;
  if (job.artifacts === undefined || job.environment === undefined || job.coverage === undefined) return null;
  if (job.only === undefined || job.except === undefined || job.rules === undefined || job.parallel === undefined) return null;
  return {
    ...job,
    script: s, beforeScript: b, afterScript: a, variables: v, cache: c, retry: r, services: sv,
    artifacts: job.artifacts, environment: job.environment, coverage: job.coverage,
    only: job.only, except: job.except, rules: job.rules, parallel: job.parallel,
  };
}

/** GitLab's Tags entry: a list of at most 50 strings. */
export function checkTags(tags: unknown, checker: EntryChecker): boolean {
  if (!isStringArray(tags)) checker.configError('should be an array of strings');
  else if (tags.length > MAX_TAGS) checker.configError(`must be less than the limit of ${MAX_TAGS} tags`);
  else return true;
  return false;
}

export function checkRulesClash(hash: PlainObject, checker: EntryChecker): void {
  if (hash.rules === undefined || hash.rules === null) return;
  const clashing = ['only', 'except', 'start_in'].filter((key) => hash[key] !== undefined && hash[key] !== null);
  if (clashing.length > 0) checker.configError(`key may not be used with \`rules\`: ${clashing.join(', ')}`);
}

function readWhen(hash: PlainObject, checker: EntryChecker): JobWhen | null {
  if (hash.when === undefined || hash.when === null) return null;
  if (JOB_WHEN.includes(hash.when as JobWhen)) return hash.when as JobWhen;
  if (typeof hash.when !== 'string') checker.attributeError('when', 'should be a string');
  checker.attributeError('when', `should be one of: ${JOB_WHEN.join(', ')}`);
  return null;
}

function readStartIn(hash: PlainObject, when: JobWhen | null, checker: EntryChecker): string | null {
  const value = hash.start_in;
  // GitLab's duration check of a delayed job's start_in: none is no duration either.
  if (value === undefined || value === null) {
    if (when === 'delayed') checker.attributeError('start_in', 'should be a duration');
    return null;
  }
  // With `rules`, a delay is the matching rule's `start_in` only.
  if (when !== 'delayed' || (hash.rules !== undefined && hash.rules !== null)) {
    checker.attributeError('start_in', 'must be blank');
    return null;
  }
  const seconds = parseDuration(value);
  if (seconds === null || typeof value === 'number') {
    checker.attributeError('start_in', 'should be a duration');
    return null;
  }
  if (seconds > ONE_WEEK) {
    checker.attributeError('start_in', 'should not exceed the limit');
    return null;
  }
  return String(value);
}

/**
 * GitLab's `allow_failure` entry: a boolean, or `{exit_codes: N | [N, ...]}` — then the job is
 * not allowed to fail (`allow_failure: false`) unless its script exits with one of the codes.
 */
function readAllowFailure(value: unknown, checker: EntryChecker): { allowFailure: boolean | null; allowFailureExitCodes: number[] | null } {
  const none = { allowFailure: null, allowFailureExitCodes: null };
  if (value === undefined || value === null) return none;
  if (typeof value === 'boolean') return { allowFailure: value, allowFailureExitCodes: null };
  if (!isPlainObject(value)) {
    checker.attributeError('allow_failure', 'should be a hash or a boolean value');
    return none;
  }
  const entry = checker.child('allow_failure');
  if (!entry.allowedKeys(value, ['exit_codes'])) return none;
  const codes = value.exit_codes;
  if (codes === undefined || codes === null) return { allowFailure: false, allowFailureExitCodes: null };
  const list = Array.isArray(codes) ? (codes as unknown[]) : [codes];
  if (!list.every((code) => typeof code === 'number' && Number.isInteger(code))) {
    entry.attributeError('exit_codes', 'should be an array of integers or an integer');
    return none;
  }
  return { allowFailure: false, allowFailureExitCodes: list.length > 0 ? (list as number[]) : null };
}

export function readResourceGroup(value: unknown, checker: EntryChecker): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    checker.attributeError('resource_group', 'should be a string');
    return null;
  }
  if (!/^[a-zA-Z0-9_\-/${}. ]+$/.test(value) || value.startsWith('/') || value.endsWith('/')) {
    checker.attributeError('resource_group', "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'");
    return null;
  }
  return value;
}

export interface Inheritance {
  defaults(key: string): boolean;
  variables(key: string): boolean;
}

export function readInherit(value: unknown, checker: EntryChecker): Inheritance | null {
  if (value === undefined || value === null) return { defaults: () => true, variables: () => true };
  const hash = checker.hash(value);
  if (!hash || !checker.allowedKeys(hash, ['default', 'variables'])) return null;
  // GitLab's Inherit::Default and ::Variables entries: a boolean, or a list (of default: keys for `default`).
  const selector = (raw: unknown, attribute: string): ((key: string) => boolean) | null => {
    if (raw === undefined || raw === null || raw === true) return () => true;
    if (raw === false) return () => false;
    const entry = checker.child(attribute);
    if (!Array.isArray(raw)) entry.sink.error(`${entry.location} should be a bool or array of strings`.toLowerCase(), entry.path);
    else if (!isStringArray(raw)) entry.configError('should be an array of strings');
    else {
      const unknown = attribute === 'default' ? raw.filter((key) => !(DEFAULTABLE_KEYS as readonly string[]).includes(key)) : [];
      if (unknown.length === 0) return (key) => raw.includes(key);
      entry.configError(`contains unknown values: ${unknown.join(', ')}`);
    }
    return null;
  };
  const defaults = selector(hash.default, 'default');
  const variables = selector(hash.variables, 'variables');
  return defaults && variables ? { defaults, variables } : null;
}
