/**
 * GitLab's Needs entry: a job's `needs` (jobs of this pipeline, by name or hash, instances of a
 * matrix job, and with `pipeline:` a job of another pipeline of the hierarchy), and the needs
 * of bridges and rules, which take jobs of this pipeline only.
 */
import type { CrossPipelineNeed, JobNeed } from '../model.ts';
import { isPlainObject } from '../values.ts';
import type { EntryChecker } from './checker.ts';
import { expandMatrix } from './environment-retry.ts';

export interface JobNeeds {
  jobs: JobNeed[];
  /** `needs: [{pipeline, job}]` (GitLab's `cross_dependency` needs). */
  crossPipeline: CrossPipelineNeed[];
}

/** GitLab's `NEEDS_CROSS_PIPELINE_DEPENDENCIES_LIMIT`. */
const MAX_CROSS_PIPELINE_NEEDS = 5;

/** A job's `needs`. */
export function readJobNeeds(value: unknown, checker: EntryChecker): JobNeeds | null {
  const needs = readNeedList(value, checker);
  if (needs && needs.crossPipeline.length > MAX_CROSS_PIPELINE_NEEDS) {
    checker.configError(`must be less than or equal to ${MAX_CROSS_PIPELINE_NEEDS}`);
    return null;
  }
  return needs;
}

/** The `needs` of a bridge or of a rule: jobs of this pipeline only (GitLab's `allowed_needs: [job]`). */
export function readNeeds(value: unknown, checker: EntryChecker): JobNeed[] | null {
  const needs = readNeedList(value, checker);
  if (!needs) return null;
  if (needs.crossPipeline.length > 0) {
    checker.configError('uses invalid types: cross_dependency');
    return null;
  }
  return needs.jobs;
}

function readNeedList(value: unknown, checker: EntryChecker): JobNeeds | null {
  if (!Array.isArray(value) && !isPlainObject(value)) {
    checker.configError('can only be a hash or an array');
    return null;
  }
  if (isPlainObject(value) && Object.keys(value).length === 0) {
    checker.configError('can not be an empty hash');
    return null;
  }
  // GitLab's Needs entry flattens nested lists (an array input interpolated as one item).
  const entries: unknown[] = [value].flat(Infinity);
  const needs: JobNeeds = { jobs: [], crossPipeline: [] };
  for (const entry of entries) {
    if (typeof entry === 'string') {
      if (entry === '') {
        checker.child('need').configError("can't be blank");
        return null;
      }
      needs.jobs.push({ job: entry, artifacts: true, optional: false });
      continue;
    }
    const need = checker.child('need');
    // GitLab's Need strategies: a hash with `pipeline` is a cross-pipeline need only beside `job`.
    const crossPipeline = isPlainObject(entry) && 'pipeline' in entry && !('project' in entry);
    if (!isPlainObject(entry) || (crossPipeline && !('job' in entry))) {
      need.sink.error(`${need.location} has an unsupported type`.toLowerCase(), need.path);
      return null;
    }
    if (crossPipeline) {
      const cross = readCrossPipelineNeed(entry, need);
      if (!cross) return null;
      needs.crossPipeline.push(cross);
      continue;
    }
    if (!need.allowedKeys(entry, ['job', 'artifacts', 'optional', 'parallel'])) return null;
    if (typeof entry.job !== 'string' || entry.job === '') {
      need.attributeError('job', entry.job === undefined || entry.job === null || entry.job === '' ? "can't be blank" : 'should be a string');
      return null;
    }
    const artifacts = entry.artifacts ?? true;
    const optional = entry.optional ?? false;
    for (const [key, flag] of [['artifacts', artifacts], ['optional', optional]] as const) {
      if (typeof flag !== 'boolean') {
        need.attributeError(key, 'should be a boolean value');
        return null;
      }
    }
    if (entry.parallel === undefined || entry.parallel === null) {
      needs.jobs.push({ job: entry.job, artifacts: artifacts as boolean, optional: optional as boolean });
      continue;
    }
    // `needs:parallel:matrix` (GitLab 16.3): the instances of that matrix, named as `parallel:matrix` names them.
    const matrix = readNeedMatrix(entry.parallel, checker, need.child('parallel'));
    const combinations = matrix ? expandMatrix(matrix, need.child('parallel').child('matrix')) : null;
    if (!combinations) return null;
    for (const combination of combinations) {
      needs.jobs.push({ job: `${entry.job}: [${combination.map((variable) => variable.value).join(', ')}]`, artifacts: artifacts as boolean, optional: optional as boolean });
    }
  }
  return needs;
}

/** GitLab's CrossPipelineDependency: `pipeline` and `job` strings, `artifacts` a boolean (default true). */
function readCrossPipelineNeed(entry: Record<string, unknown>, need: EntryChecker): CrossPipelineNeed | null {
  if (!need.allowedKeys(entry, ['pipeline', 'job', 'artifacts'])) return null;
  for (const key of ['pipeline', 'job'] as const) {
    const value = entry[key];
    if (typeof value !== 'string' || value === '') {
      need.attributeError(key, value === undefined || value === null || value === '' ? "can't be blank" : 'should be a string');
      return null;
    }
  }
  const artifacts = entry.artifacts ?? true;
  if (typeof artifacts !== 'boolean') {
    need.attributeError('artifacts', 'should be a boolean value');
    return null;
  }
  return { pipeline: entry.pipeline as string, job: entry.job as string, artifacts };
}

/** `needs:parallel` is a hash with a `matrix` list (a number is refused by the needs entry). */
function readNeedMatrix(value: unknown, needs: EntryChecker, checker: EntryChecker): unknown[] | null {
  if (!isPlainObject(value)) {
    if (typeof value === 'number') needs.configError('cannot use "parallel: <number>".');
    else checker.configError('should be a hash');
    return null;
  }
  const unknown = !checker.allowedKeys(value, ['matrix']);
  if (value.matrix === undefined || value.matrix === null) {
    checker.configError('missing required keys: matrix');
    return null;
  }
  if (unknown) return null;
  if (!Array.isArray(value.matrix)) {
    checker.child('matrix').configError('should be an array of hashes');
    return null;
  }
  return value.matrix;
}
