/** `image` and `services`: a name, or a hash with entrypoint/alias/command (and a service's variables). */
import type { PullPolicy } from '../../protocol/job-payload.ts';
import type { DockerOptions, ImageDefinition, ServiceDefinition } from '../model.ts';
import { isPlainObject, isStringArray } from '../values.ts';
import type { EntryChecker } from './checker.ts';
import { readVariables } from './variables.ts';

export function readImage(value: unknown, checker: EntryChecker): ImageDefinition | null {
  if (typeof value === 'string') return { name: value, entrypoint: null };
  if (!isPlainObject(value)) {
    checker.configError('should be a hash or a string');
    return null;
  }
  if (!checker.allowedKeys(value, ['name', 'entrypoint', 'ports', 'pull_policy', 'docker', 'kubernetes']) || !executorKeysValid(value, checker)) return null;
  if (typeof value.name !== 'string') {
    checker.attributeError('name', "can't be blank");
    return null;
  }
  const entrypoint = readCommandList(value.entrypoint, 'entrypoint', checker);
  const docker = readDockerOptions(value.docker, checker);
  const pullPolicy = readPullPolicy(value.pull_policy, checker.child('pull_policy'));
  if (entrypoint === undefined || docker === undefined || pullPolicy === undefined) return null;
  return { name: value.name, entrypoint, ...(docker ? { docker } : {}), ...(pullPolicy ? { pullPolicy } : {}) };
}

export function readServices(value: unknown, checker: EntryChecker): ServiceDefinition[] | null {
  if (!Array.isArray(value)) {
    checker.configError('should be an array');
    return null;
  }
  const services: ServiceDefinition[] = [];
  let valid = true;
  value.forEach((entry, index) => {
    const service = readService(entry, checker.child('service', index));
    if (service) services.push(service);
    else valid = false;
  });
  return valid ? services : null;
}

function readService(value: unknown, checker: EntryChecker): ServiceDefinition | null {
  if (typeof value === 'string') return { name: value, alias: null, entrypoint: null, command: null };
  if (!isPlainObject(value)) {
    checker.configError('should be a hash or a string');
    return null;
  }
  const keys = ['name', 'alias', 'entrypoint', 'command', 'ports', 'variables', 'pull_policy', 'docker', 'kubernetes'];
  if (!checker.allowedKeys(value, keys) || !executorKeysValid(value, checker)) return null;
  if (typeof value.name !== 'string') {
    checker.attributeError('name', "can't be blank");
    return null;
  }
  if (value.alias !== undefined && typeof value.alias !== 'string') {
    checker.attributeError('alias', 'should be a string');
    return null;
  }
  const entrypoint = readCommandList(value.entrypoint, 'entrypoint', checker);
  const command = readCommandList(value.command, 'command', checker);
  const variables = readVariables(value.variables, checker.child('variables'));
  const docker = readDockerOptions(value.docker, checker);
  const pullPolicy = readPullPolicy(value.pull_policy, checker.child('pull_policy'));
  if (entrypoint === undefined || command === undefined || variables === null || docker === undefined || pullPolicy === undefined) return null;
  const service: ServiceDefinition = { name: value.name, alias: typeof value.alias === 'string' ? value.alias : null, entrypoint, command };
  return { ...service, ...(variables.length > 0 ? { variables } : {}), ...(docker ? { docker } : {}), ...(pullPolicy ? { pullPolicy } : {}) };
}

const PULL_POLICIES: readonly string[] = ['always', 'never', 'if-not-present'] satisfies PullPolicy[];

/**
 * `pull_policy`: one policy or a list of them (GitLab's messages); always a list for the
 * runner. undefined = invalid (already reported); null = not set.
 */
function readPullPolicy(value: unknown, checker: EntryChecker): PullPolicy[] | null | undefined {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') {
    if (PULL_POLICIES.includes(value)) return [value as PullPolicy];
    checker.configError('is not included in the list');
    return undefined;
  }
  if (!Array.isArray(value)) {
    checker.configError('should be an array of strings or a string');
    return undefined;
  }
  // GitLab runs each validation of a list: every one that fails is reported.
  const errors: string[] = [];
  if (!isStringArray(value)) errors.push('should be an array of strings or a string');
  const unknown = value.filter((item) => typeof item !== 'string' || !PULL_POLICIES.includes(item));
  if (unknown.length > 0) errors.push(`contains unknown values: ${unknown.map(String).join(', ')}`);
  if (value.length === 0) errors.push("can't be blank");
  for (const message of errors) checker.configError(message);
  return errors.length === 0 ? (value as PullPolicy[]) : undefined;
}

/**
 * `docker: {user, platform}` (GitLab 16.x): the user is kept (platform, for pulls, is not used
 * here). undefined = invalid (already reported); null = no user.
 */
function readDockerOptions(value: unknown, checker: EntryChecker): DockerOptions | null | undefined {
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value)) {
    checker.attributeError('docker', 'should be a hash');
    return undefined;
  }
  const options = checker.child('docker');
  if (!options.allowedKeys(value, ['platform', 'user'])) return undefined;
  for (const key of ['platform', 'user'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'string') {
      options.attributeError(key, 'should be a string');
      return undefined;
    }
  }
  return typeof value.user === 'string' && value.user !== '' ? { user: value.user } : null;
}

/**
 * `ports` are GitLab's Web IDE terminal's only (refused in pipelines); `kubernetes: {user}`
 * (GitLab 17.x) is for the Kubernetes executor: checked, not used here.
 */
function executorKeysValid(value: Record<string, unknown>, checker: EntryChecker): boolean {
  if (value.ports !== undefined) {
    checker.configError('contains disallowed keys: ports');
    return false;
  }
  const kubernetes = value.kubernetes;
  if (kubernetes === undefined || kubernetes === null) return true;
  if (!isPlainObject(kubernetes)) {
    checker.attributeError('kubernetes', 'should be a hash');
    return false;
  }
  const options = checker.child('kubernetes');
  if (!options.allowedKeys(kubernetes, ['user'])) return false;
  if (kubernetes.user === undefined || kubernetes.user === null || typeof kubernetes.user === 'string') return true;
  options.attributeError('user', 'should be a string');
  return false;
}

/** undefined = invalid (already reported); null = not set. The runner needs arrays. */
function readCommandList(value: unknown, attribute: string, checker: EntryChecker): string[] | null | undefined {
  if (value === undefined || value === null) return null;
  if (isStringArray(value)) return value;
  checker.attributeError(attribute, 'should be an array of strings');
  return undefined;
}
