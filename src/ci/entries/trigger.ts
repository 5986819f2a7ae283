/**
 * `trigger:` of a bridge job (GitLab `Entry::Trigger`): a project path, a cross-project hash
 * `{project, branch, strategy, forward, inputs}` or a child-pipeline hash `{include, strategy, forward}`
 * (a child's inputs are its include entries' `inputs`).
 * Only the shape is checked here; child include files are read when the child is created.
 */
import type { IncludeSource, TriggerDefinition, TriggerForward, TriggerStrategy } from '../model.ts';
import { isPlainObject, isStringArray, rubyJson, type PlainObject } from '../values.ts';
import type { EntryChecker } from './checker.ts';

/** GitLab's `SameProjectTrigger::INCLUDE_MAX_SIZE`. */
export const MAX_CHILD_INCLUDES = 3;

const PROJECT_KEYS = ['project', 'branch', 'strategy', 'forward', 'inputs'];
const CHILD_KEYS = ['strategy', 'include', 'forward'];
/** `Entry::Include::ALLOWED_KEYS`. */
const INCLUDE_KEYS = ['local', 'file', 'remote', 'project', 'ref', 'integrity', 'template', 'artifact', 'inputs', 'job', 'rules', 'component'];
const ACCESSORS = ['local', 'project', 'remote', 'template', 'artifact', 'component'];
const DEFAULT_FORWARD: TriggerForward = { yamlVariables: true, pipelineVariables: false };

/** The trigger, or undefined after reporting why it is invalid. */
export function readTrigger(value: unknown, checker: EntryChecker): TriggerDefinition | undefined {
  if (typeof value === 'string') {
    if (value.trim() !== '') return { kind: 'project', project: value, branch: null, strategy: null, forward: { ...DEFAULT_FORWARD } };
    checker.configError("can't be blank");
    return undefined;
  }
  if (!isPlainObject(value)) {
    checker.sink.error(`${checker.location} has to be either a string or a hash`, checker.path);
    return undefined;
  }
  const errors = checker.sink.errors.length;
  if (Object.keys(value).length === 0) checker.configError("can't be blank");
  const child = 'include' in value;
  checker.allowedKeys(value, child ? CHILD_KEYS : PROJECT_KEYS);
  const strategy = readStrategy(value, checker);
  const forward = readForward(value.forward, checker.child('forward'));
  if (child) {
    const include = readChildIncludes(value.include, checker.child('include'));
    if (checker.sink.errors.length > errors || !include || !forward) return undefined;
    return { kind: 'child', include, strategy, forward };
  }
  const project = value.project;
  if (project === undefined || project === null || project === '') checker.attributeError('project', "can't be blank");
  else if (typeof project !== 'string') checker.attributeError('project', 'should be a string');
  const branch = value.branch ?? null;
  if (branch !== null && typeof branch !== 'string') checker.attributeError('branch', 'should be a string');
  const inputs = value.inputs ?? undefined;
  if (inputs !== undefined && !isPlainObject(inputs)) checker.attributeError('inputs', 'should be a hash');
  if (checker.sink.errors.length > errors || typeof project !== 'string' || !forward) return undefined;
  return { kind: 'project', project, branch: typeof branch === 'string' ? branch : null, strategy, forward, ...(isPlainObject(inputs) ? { inputs } : {}) };
}

function readStrategy(value: PlainObject, checker: EntryChecker): TriggerStrategy {
  const strategy = value.strategy;
  if (strategy === undefined || strategy === null) return null;
  if (typeof strategy !== 'string') checker.attributeError('strategy', 'should be a string');
  // `mirror` (GitLab 18.2) also waits for the downstream pipeline and takes its status; it is
  // read as `depend`, whose status rules are the nearest we keep.
  if (strategy !== 'depend' && strategy !== 'mirror') checker.attributeError('strategy', 'should be depend');
  return 'depend';
}

function readForward(value: unknown, checker: EntryChecker): TriggerForward | null {
  if (value === undefined || value === null) return { ...DEFAULT_FORWARD };
  const hash = checker.hash(value);
  if (!hash) return null;
  const known = checker.allowedKeys(hash, ['yaml_variables', 'pipeline_variables']);
  const yamlVariables = checker.booleanAttribute(hash, 'yaml_variables');
  const pipelineVariables = checker.booleanAttribute(hash, 'pipeline_variables');
  const invalid = (key: string): boolean => hash[key] !== undefined && hash[key] !== null && typeof hash[key] !== 'boolean';
  if (!known || invalid('yaml_variables') || invalid('pipeline_variables')) return null;
  return {
    yamlVariables: yamlVariables ?? DEFAULT_FORWARD.yamlVariables,
    pipelineVariables: pipelineVariables ?? DEFAULT_FORWARD.pipelineVariables,
  };
}

/** `trigger:include` (`Entry::Includes` with max_size 3): a string or an array of strings and hashes. */
function readChildIncludes(value: unknown, checker: EntryChecker): IncludeSource[] | null {
  if (typeof value !== 'string' && !Array.isArray(value)) {
    checker.configError('should be an array or a string');
    return null;
  }
  const entries: unknown[] = typeof value === 'string' ? [value] : value;
  if (entries.length > MAX_CHILD_INCLUDES) {
    checker.configError(`is too long (maximum is ${MAX_CHILD_INCLUDES})`);
    return null;
  }
  const sources: IncludeSource[] = [];
  let valid = true;
  entries.forEach((entry, index) => {
    const read = readChildInclude(entry, checker.child('include', index));
    if (read) sources.push(...read);
    else valid = false;
  });
  return valid ? sources : null;
}

function readChildInclude(entry: unknown, checker: EntryChecker): IncludeSource[] | null {
  if (typeof entry === 'string') return readStringInclude(entry, checker);
  if (!isPlainObject(entry)) {
    checker.configError('should be a hash or a string');
    return null;
  }
  if (!checker.allowedKeys(entry, INCLUDE_KEYS)) return null;
  if (entry.project !== undefined && (entry.file === undefined || entry.file === null || entry.file === '')) {
    checker.configError('must specify the file where to fetch the config from');
    return null;
  }
  const job = typeof entry.job === 'string' && entry.job !== '' ? entry.job : null;
  if (entry.artifact !== undefined && job === null) {
    checker.configError('must specify the job where to fetch the artifact from');
    return null;
  }
  const accessors = ACCESSORS.filter((key) => key in entry);
  if (accessors.length !== 1) return includeError(checker, `Include \`${rubyJson(entry)}\` needs to match exactly one accessor!`);
  if (entry.rules !== undefined) return includeError(checker, `Include \`${rubyJson(entry)}\` with rules is not supported by this coordinator!`);
  const accessor = accessors[0];
  if (accessor === 'template') return includeError(checker, `Template include \`${rubyJson(entry)}\` is not supported by this coordinator!`);
  const text = (key: string): string | null => {
    const item = entry[key];
    if (typeof item === 'string' && item.trim() !== '') return item;
    checker.attributeError(key, 'should be a string');
    return null;
  };
  // The child's compilation reads each file as `include` does, `spec:inputs` with these inputs included.
  const inputs = isPlainObject(entry.inputs) ? { inputs: entry.inputs } : {};
  if (accessor === 'local') {
    const local = text('local');
    return local === null ? null : [{ kind: 'local', local, ...inputs }];
  }
  if (accessor === 'artifact') {
    const artifact = text('artifact');
    return artifact === null || job === null ? null : [{ kind: 'artifact', artifact, job, ...inputs }];
  }
  if (accessor === 'component') {
    const component = text('component');
    return component === null ? null : [{ kind: 'component', component, ...inputs }];
  }
  if (accessor === 'remote') {
    const remote = text('remote');
    const integrity = typeof entry.integrity === 'string' ? { integrity: entry.integrity } : {};
    return remote === null ? null : [{ kind: 'remote', remote, ...integrity, ...inputs }];
  }
  const project = text('project');
  const files = typeof entry.file === 'string' ? [entry.file] : isStringArray(entry.file) ? entry.file : null;
  if (!files) checker.attributeError('file', 'should be a string or an array of strings');
  const refGiven = entry.ref !== undefined && entry.ref !== null;
  const ref = refGiven ? text('ref') : null;
  if (project === null || !files || (refGiven && ref === null)) return null;
  return files.map((file) => ({ kind: 'project' as const, project, file, ref, ...inputs }));
}

function readStringInclude(entry: string, checker: EntryChecker): IncludeSource[] | null {
  if (/^https?:\/\//i.test(entry)) return [{ kind: 'remote', remote: entry }];
  if (entry.trim() === '') {
    checker.configError("can't be blank");
    return null;
  }
  return [{ kind: 'local', local: entry }];
}

/** Messages of GitLab's include mapper (`Include ... needs to match exactly one accessor!`) carry no location. */
function includeError(checker: EntryChecker, message: string): null {
  checker.sink.error(`${checker.location.replace(/:include$/, '')}: ${message}`, checker.path);
  return null;
}
