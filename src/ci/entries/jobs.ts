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

export function readJobEntry(inputs: JobInputs, sink: DiagnosticSink): JobConfig | null {
  const { name, value } = inputs;
  if (!isPlainObject(value) || 'script' in value) return readJob(inputs, sink);
  if ('trigger' in value || 'needs' in value) return readBridge({ ...inputs, value }, sink);
  sink.error(`jobs ${name} config should implement the script:, run:, or trigger: keyword`, [name]);
  return null;
}
