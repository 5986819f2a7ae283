/** The top level: reserved keywords (stages, variables, default, workflow, globals) and jobs. */
import type { DiagnosticSink } from '../diagnostics.ts';
import { timeoutProblem } from '../durations.ts';
import type { WorkflowConfig } from '../job-config.ts';
import type { YamlVariable } from '../model.ts';
import { isPlainObject, scalarToString, type PlainObject } from '../values.ts';
import { readArtifacts, readCaches } from './artifacts-cache.ts';
import { EntryChecker, readScript } from './checker.ts';
import { readRetry } from './environment-retry.ts';
import { readHooks } from './hooks.ts';
import { readIdTokens } from './id-tokens.ts';
import { readImage, readServices } from './image-services.ts';
import { checkTags, DEFAULTABLE_KEYS } from './job.ts';
import { readAutoCancel } from './auto-cancel.ts';
import { readRules } from './policies.ts';
import { GLOBAL_VARIABLE_DATA, readVariables } from './variables.ts';

/** Top-level keys that are defaults of every job too (GitLab's deprecated globals). */
export const GLOBAL_KEYS = ['image', 'services', 'before_script', 'after_script', 'cache'] as const;
/** Top-level keys that are not jobs. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set([
  'image', 'services', 'stages', 'types', 'before_script', 'after_script', 'variables', 'cache',
  'include', 'default', 'workflow',
]);
export const DEFAULT_STAGES = ['build', 'test', 'deploy'];
/** The longest pipeline name GitLab keeps. */
export const MAX_PIPELINE_NAME = 255;

export interface RootConfig {
  /** Declared stages with `.pre` first and `.post` last. */
  stages: string[];
  jobs: { name: string; value: unknown }[];
  /** Default values that passed validation, by key. */
  defaults: PlainObject;
  globalVariables: YamlVariable[];
  workflow: WorkflowConfig;
}

export function readRoot(config: PlainObject, sink: DiagnosticSink, maxExpressionTokens: number): RootConfig {
  const stages = readStages(config, sink);
  const globalVariables = readVariables(config.variables, new EntryChecker(sink, 'variables', ['variables']), GLOBAL_VARIABLE_DATA) ?? [];
  const defaults = readDefaults(config, sink);
  const workflow = readWorkflow(config.workflow, sink, maxExpressionTokens);

  const jobs: RootConfig['jobs'] = [];
  for (const [name, value] of Object.entries(config)) {
    if (RESERVED_KEYS.has(name)) continue;
    if (name.startsWith('.')) continue;
    jobs.push({ name, value });
  }
  if (jobs.length === 0) {
    sink.error('jobs config should contain at least one visible job', []);
  }
  return { stages, jobs, defaults, globalVariables, workflow };
}

function readStages(config: PlainObject, sink: DiagnosticSink): string[] {
  // An empty key (`stages:`) is unspecified, as GitLab reads it.
  const key = config.stages !== undefined && config.stages !== null ? 'stages' : config.types !== undefined && config.types !== null ? 'types' : null;
  let declared = DEFAULT_STAGES;
  if (key !== null) {
    const value = config[key];
    const flattened = Array.isArray(value) ? flattenStages(value, 1) : null;
    if (flattened) declared = flattened;
    else sink.error(`${key} config should be an array of strings`, [key]);
  }
  const middle = declared.filter((stage) => stage !== '.pre' && stage !== '.post');
  return ['.pre', ...new Set(middle), '.post'];
}

/** Stages may be nested lists (GitLab 14.x, up to 10 levels), read as one list. */
function flattenStages(items: unknown[], depth: number): string[] | null {
  const stages: string[] = [];
  for (const item of items) {
    if (typeof item === 'string') stages.push(item);
    else if (!Array.isArray(item) || depth >= 10) return null;
    else {
      const inner = flattenStages(item, depth + 1);
      if (!inner) return null;
      stages.push(...inner);
    }
  }
  return stages;
}

function readDefaults(config: PlainObject, sink: DiagnosticSink): PlainObject {
  const defaults: PlainObject = {};
  const defaultEntry = config.default;
  if (defaultEntry !== undefined && defaultEntry !== null) {
    const checker = new EntryChecker(sink, 'default', ['default']);
    const hash = checker.hash(defaultEntry);
    if (hash && checker.allowedKeys(hash, DEFAULTABLE_KEYS)) {
      for (const key of GLOBAL_KEYS) {
        if (key in hash && key in config) sink.error(`${key} is defined in top-level and \`default:\` entry`, ['default', key]);
      }
      for (const [key, value] of Object.entries(hash)) {
        if (value !== null && validDefault(key, value, checker.child(key))) defaults[key] = value;
      }
    }
  }
  for (const key of GLOBAL_KEYS) {
    // An empty top-level key (`before_script:`) is unspecified, as GitLab reads it.
    if (!(key in config) || config[key] === null || key in defaults) continue;
    const value = config[key];
    if (validDefault(key, value, new EntryChecker(sink, key, [key]))) defaults[key] = value;
  }
  return defaults;
}

function validDefault(key: string, value: unknown, checker: EntryChecker): boolean {
  const errors = checker.sink.errors.length;
  switch (key) {
    case 'before_script':
    case 'after_script':
      readScript(value, checker);
      break;
    case 'image':
      readImage(value, checker);
      break;
    case 'services':
      readServices(value, checker);
      break;
    case 'cache':
      readCaches(value, checker);
      break;
    case 'artifacts':
      readArtifacts(value, checker);
      break;
    case 'retry':
      readRetry(value, checker);
      break;
    case 'tags':
      checkTags(value, checker);
      break;
    case 'interruptible':
      if (typeof value !== 'boolean') checker.configError('should be a boolean value');
      break;
    case 'hooks':
      readHooks(value, checker);
      break;
    case 'id_tokens':
      readIdTokens(value, checker);
      break;
    case 'timeout':
      {
        const problem = timeoutProblem(value);
        if (problem) checker.configError(problem);
      }
      break;
  }
  return checker.sink.errors.length === errors;
}

function readWorkflow(value: unknown, sink: DiagnosticSink, maxTokens: number): WorkflowConfig {
  const none: WorkflowConfig = { rules: null, name: null, autoCancel: null };
  if (value === undefined || value === null) return none;
  const checker = new EntryChecker(sink, 'workflow', ['workflow']);
  if (!isPlainObject(value)) {
    checker.configError('should be a hash');
    return none;
  }
  if (!checker.allowedKeys(value, ['rules', 'name', 'auto_cancel'])) return none;
  return {
    rules: readRules(value.rules, checker.child('rules'), maxTokens, 'workflow') ?? null,
    name: readWorkflowName(value.name, checker),
    autoCancel: readAutoCancel(value.auto_cancel, checker.child('auto_cancel')) ?? null,
  };
}

/** `workflow:name` (GitLab 15.5): at most 255 characters before its variables are expanded; empty is no name. */
function readWorkflowName(value: unknown, checker: EntryChecker): string | null {
  if (value === undefined || value === null) return null;
  const name = scalarToString(value);
  if (name === null) checker.attributeError('name', 'should be a string');
  else if (name.length > MAX_PIPELINE_NAME) checker.attributeError('name', `is too long (maximum is ${MAX_PIPELINE_NAME} characters)`);
  else return name;
  return null;
}
