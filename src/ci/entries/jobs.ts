/**
 * Which kind of job a visible top-level hash is (GitLab `Entry::Jobs.find_type`, in its
 * order): a `script` makes a job, else `trigger` (or `needs`) a bridge. So `script` with
 * `trigger` is a job whose `trigger` key is unknown, as in GitLab.
 */
import type { DiagnosticSink } from '../diagnostics.ts';
import type { JobConfig } from '../job-config.ts';
import { isPlainObject } from '../values.ts';
import { readBridge } from './bridge.ts';
import { readJob, type JobInputs } from './job.ts';

const MAX_NAME_LENGTH = 255;

export function readJobEntry(inputs: JobInputs, sink: DiagnosticSink): JobConfig | null {
  const { name, value } = inputs;
  // GitLab's Processable name checks; an empty key's entry is located by its kind, `job`.
  if (name === '') {
    sink.error("jobs:job name can't be blank", [name]);
    return null;
  }
  if ([...name].length > MAX_NAME_LENGTH) {
    sink.error(`jobs:${name} name is too long (maximum is ${MAX_NAME_LENGTH} characters)`.toLowerCase(), [name]);
    return null;
  }
  // Not a hash is no job of any kind: GitLab's Jobs entry finds no type for it (modern wording).
  if (isPlainObject(value) && 'script' in value) return readJob(inputs, sink);
  if (!isPlainObject(value)) {
    sink.error(`jobs ${name} config should implement the script:, run:, or trigger: keyword`, [name]);
    return null;
  }
  if ('trigger' in value || 'needs' in value) return readBridge({ ...inputs, value }, sink);
  sink.error(`jobs ${name} config should implement the script:, run:, or trigger: keyword`, [name]);
  return null;
}
