/** `environment`, `retry`, `parallel`, `coverage`. */
import type { EnvironmentDefinition, RetryDefinition, YamlVariable } from '../model.ts';
import type { ParallelConfig } from '../job-config.ts';
import { isPlainObject, isStringArray, scalarToString } from '../values.ts';
import { isValidRegexp } from '../expression/regexp.ts';
import { isValidExpireIn } from '../durations.ts';
import { ENVIRONMENT_TIERS, isEnvironmentTier } from '../environment-tier.ts';
import type { EntryChecker } from './checker.ts';

const ENVIRONMENT_ACTIONS = ['start', 'stop', 'prepare', 'verify', 'access'] as const;
type EnvironmentAction = (typeof ENVIRONMENT_ACTIONS)[number];

/** Gitlab::Regex.environment_name_regex: letters, digits, `-_/${}.` and spaces, no `/` first or last. */
const ENVIRONMENT_NAME = /^[a-zA-Z0-9_${}. -]([a-zA-Z0-9_/${}. -]*[a-zA-Z0-9_${}. -])?$/;
const ENVIRONMENT_NAME_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'";

export function readEnvironment(value: unknown, checker: EntryChecker): EnvironmentDefinition | null | undefined {
  if (value === null) return null;
  if (typeof value === 'string') return checkEnvironmentName(value, checker) ? { name: value, url: null, action: 'start', onStop: null } : undefined;
  if (!isPlainObject(value)) {
    checker.configError('should be a hash or a string');
    return undefined;
  }
  const allowed = ['name', 'url', 'action', 'on_stop', 'auto_stop_in', 'kubernetes', 'deployment_tier'];
  if (!checker.allowedKeys(value, allowed)) return undefined;
  if (value.name !== undefined && value.name !== null && typeof value.name !== 'string') {
    checker.attributeError('name', ENVIRONMENT_NAME_MESSAGE);
    return undefined;
  }
  if (!checkEnvironmentName(value.name ?? '', checker)) return undefined;
  if (value.on_stop !== undefined && value.on_stop !== null && typeof value.on_stop !== 'string') {
    checker.attributeError('on_stop', 'should be a string');
    return undefined;
  }
  if (value.auto_stop_in !== undefined && value.auto_stop_in !== null && !isAutoStopIn(value.auto_stop_in)) {
    checker.attributeError('auto_stop_in', 'should be a duration');
    return undefined;
  }
  if (value.kubernetes !== undefined && value.kubernetes !== null && !isPlainObject(value.kubernetes)) {
    checker.attributeError('kubernetes', 'should be a hash');
    return undefined;
  }
  const action = value.action ?? 'start';
  if (!ENVIRONMENT_ACTIONS.includes(action as EnvironmentAction)) {
    checker.attributeError('action', 'should be start, stop, prepare, verify, or access');
    return undefined;
  }
  if (value.url !== undefined && typeof value.url !== 'string') {
    checker.attributeError('url', 'should be a string');
    return undefined;
  }
  if (typeof value.url === 'string' && value.url.length > 255) {
    checker.attributeError('url', 'is too long (maximum is 255 characters)');
    return undefined;
  }
  const tier = value.deployment_tier;
  if (tier !== undefined && tier !== null && !isEnvironmentTier(tier)) {
    checker.attributeError('deployment_tier', `must be one of ${ENVIRONMENT_TIERS.join(', ')}`);
    return undefined;
  }
  return {
    name: value.name as string,
    url: typeof value.url === 'string' ? value.url : null,
    action: action as EnvironmentAction,
    onStop: typeof value.on_stop === 'string' ? value.on_stop : null,
    ...(tier ? { deploymentTier: tier } : {}),
    ...(typeof value.auto_stop_in === 'string' ? { autoStopIn: value.auto_stop_in } : {}),
  };
}

/** A duration (or `never`), or text with a variable that the pipeline expands later, as GitLab's duration check allows. */
function isAutoStopIn(value: unknown): boolean {
  return typeof value === 'string' && (isValidExpireIn(value) || VARIABLE_REFERENCE.test(value));
}

/** GitLab's ExpandVariables::VARIABLES_REGEXP: `$VAR`, `${VAR}` or `%VAR%`. */
const VARIABLE_REFERENCE = /\$[a-zA-Z_][a-zA-Z0-9_]*|\$\{[a-zA-Z_][a-zA-Z0-9_]*\}|%[a-zA-Z_][a-zA-Z0-9_]*%/;

function checkEnvironmentName(name: unknown, checker: EntryChecker): name is string {
  if (typeof name !== 'string' || name === '') {
    checker.attributeError('name', "can't be blank");
    return false;
  }
  if (!ENVIRONMENT_NAME.test(name)) {
    checker.attributeError('name', ENVIRONMENT_NAME_MESSAGE);
    return false;
  }
  return true;
}

/** Failure reasons `retry:when` accepts (GitLab's CommitStatus failure reasons), plus `always`. */
export const RETRY_WHEN_VALUES = [
  'always',
  'unknown_failure', 'script_failure', 'api_failure', 'stuck_or_timeout_failure', 'runner_system_failure',
  'missing_dependency_failure', 'runner_unsupported', 'stale_schedule', 'job_execution_timeout', 'archived_failure',
  'unmet_prerequisites', 'scheduler_failure', 'data_integrity_failure', 'forward_deployment_failure', 'user_blocked',
  'project_deleted', 'ci_quota_exceeded', 'pipeline_loop_detected', 'no_matching_runner', 'trace_size_exceeded',
  'builds_disabled', 'environment_creation_failure', 'deployment_rejected', 'failed_outdated_deployment_job',
  'protected_environment_failure', 'insufficient_bridge_permissions', 'downstream_bridge_project_not_found',
  'invalid_bridge_trigger', 'upstream_bridge_project_not_found', 'insufficient_upstream_permissions',
  'bridge_pipeline_is_child_pipeline', 'downstream_pipeline_creation_failed', 'secrets_provider_not_found',
  'reached_max_descendant_pipelines_depth', 'ip_restriction_failure', 'reached_max_pipeline_hierarchy_size',
  'reached_downstream_pipeline_trigger_rate_limit',
  // Later GitLab releases' reasons (up to 19.1's runner_configuration_error,
  // runner_external_dependency_failure and runner_interrupted): a file written for them is valid.
  'job_execution_server_timeout', 'stuck_pending_with_matching_runners', 'stuck_pending_no_matching_runners',
  'no_updates_running', 'no_updates_canceling', 'server_timeout_running', 'server_timeout_canceling',
  'runner_configuration_error', 'runner_external_dependency_failure', 'runner_interrupted', 'duo_workflow_not_allowed',
  'job_router_failure', 'job_token_expired', 'id_token_burned_project_path', 'downstream_project_trigger_resolved_to_empty',
];

export const NO_RETRY: RetryDefinition = { max: 0, when: ['always'] };

export function readRetry(value: unknown, checker: EntryChecker): RetryDefinition | null {
  if (value === undefined || value === null) return NO_RETRY;
  if (typeof value === 'number') return checkMax(value, checker) ? { max: value, when: ['always'] } : null;
  if (!isPlainObject(value)) {
    retryShapeError(checker);
    return null;
  }
  if (!checker.allowedKeys(value, ['max', 'when', 'exit_codes'])) return null;
  const max = value.max ?? 0;
  if (!checkHashMax(max, checker)) return null;
  const exitCodes = readRetryExitCodes(value.exit_codes, checker);
  if (exitCodes === false) return null;
  // GitLab's AutoRetry: with exit codes and no `when`, only those codes retry (no `always`).
  const absentWhen = exitCodes === undefined ? ['always'] : [];
  const when = value.when === undefined || value.when === null ? absentWhen : typeof value.when === 'string' ? [value.when] : value.when;
  if (!isStringArray(when)) {
    checker.attributeError('when', 'should be an array of strings or a string');
    return null;
  }
  const unknown = when.filter((reason) => !RETRY_WHEN_VALUES.includes(reason));
  if (unknown.length > 0) {
    checker.attributeError('when', typeof value.when === 'string' ? 'is not included in the list' : `contains unknown values: ${unknown.join(', ')}`);
    return null;
  }
  return exitCodes === undefined ? { max, when } : { max, when, exitCodes };
}

/** `retry:exit_codes`: an integer or an array of integers (false: refused, undefined: absent). */
function readRetryExitCodes(value: unknown, checker: EntryChecker): number[] | undefined | false {
  if (value === undefined || value === null) return undefined;
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  if (!list.every((code) => typeof code === 'number' && Number.isInteger(code))) {
    checker.attributeError('exit_codes', 'should be an array of integers or an integer');
    return false;
  }
  return list as number[];
}

/** GitLab's retry `UnknownStrategy` message: written as is, not lowercased as validator messages are. */
function retryShapeError(checker: EntryChecker): void {
  checker.sink.error(`${checker.location} config has to be either an integer or a hash`, checker.path);
}

/** `retry:max` in the hash form is an attribute: `retry max must be ...`. */
function checkHashMax(max: unknown, checker: EntryChecker): max is number {
  if (typeof max !== 'number' || !Number.isInteger(max)) checker.attributeError('max', 'must be an integer');
  else if (max > 2) checker.attributeError('max', 'must be less than or equal to 2');
  else if (max < 0) checker.attributeError('max', 'must be greater than or equal to 0');
  else return true;
  return false;
}

function checkMax(max: number, checker: EntryChecker): boolean {
  if (!Number.isInteger(max)) retryShapeError(checker);
  else if (max > 2) checker.configError('must be less than or equal to 2');
  else if (max < 0) checker.configError('must be greater than or equal to 0');
  else return true;
  return false;
}

export const MAX_PARALLEL = 200;

export function readParallel(value: unknown, checker: EntryChecker): ParallelConfig | null | undefined {
  if (value === undefined || value === null) return null;
  // GitLab's Parallel entry words a value of neither kind without `config`.
  const shapeError = (): void => checker.sink.error(`${checker.location} should be an integer or a hash`.toLowerCase(), checker.path);
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) shapeError();
    else if (value < 1) checker.configError('must be greater than or equal to 1');
    else if (value > MAX_PARALLEL) checker.configError(`must be less than or equal to ${MAX_PARALLEL}`);
    else return { kind: 'number', total: value };
    return undefined;
  }
  if (!isPlainObject(value)) {
    shapeError();
    return undefined;
  }
  if (!checker.allowedKeys(value, ['matrix'])) return undefined;
  if (value.matrix === undefined || value.matrix === null) {
    checker.configError('missing required keys: matrix');
    return undefined;
  }
  if (!Array.isArray(value.matrix)) {
    checker.child('matrix').configError('should be an array of hashes');
    return undefined;
  }
  const combinations = expandMatrix(value.matrix, checker.child('matrix'));
  if (!combinations) return undefined;
  if (combinations.length > MAX_PARALLEL) {
    checker.child('matrix').configError(`generates too many jobs (maximum is ${MAX_PARALLEL})`);
    return undefined;
  }
  return { kind: 'matrix', combinations };
}

/** Each matrix entry is a hash of variable → value or values; its cartesian product is taken. */
export function expandMatrix(entries: unknown[], checker: EntryChecker): YamlVariable[][] | null {
  const combinations: YamlVariable[][] = [];
  for (const entry of entries) {
    if (!isPlainObject(entry) || Object.keys(entry).length === 0) {
      checker.configError('should be an array of hashes');
      return null;
    }
    let partial: YamlVariable[][] = [[]];
    for (const [key, raw] of Object.entries(entry)) {
      const values = Array.isArray(raw) ? raw.map(scalarToString) : [scalarToString(raw)];
      if (values.length === 0 || values.some((item) => item === null)) {
        checker.configError('should be an array of hashes');
        return null;
      }
      partial = partial.flatMap((combo) => values.map((item) => [...combo, { key, value: item ?? '' }]));
      if (partial.length > MAX_PARALLEL) break;
    }
    combinations.push(...partial);
    if (combinations.length > MAX_PARALLEL) break;
  }
  return combinations;
}

/** `coverage: '/Coverage: \d+%/'` → the regex source (RE2 syntax), or undefined when invalid. */
export function readCoverage(value: unknown, checker: EntryChecker): string | null | undefined {
  if (value === undefined || value === null) return null;
  const match = typeof value === 'string' ? /^\/(.*)\/$/s.exec(value) : null;
  if (match && isValidRegexp(match[0])) return match[1] ?? '';
  checker.configError('must be a regular expression with re2 syntax');
  return undefined;
}
