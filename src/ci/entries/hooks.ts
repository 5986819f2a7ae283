/** `hooks` (GitLab 15.6): commands the runner runs at a point of the job; `pre_get_sources_script` only, as GitLab. */
import type { JobHooks } from '../model.ts';
import { isPlainObject } from '../values.ts';
import { readScript, type EntryChecker } from './checker.ts';

/** The hooks read; null when absent; undefined when invalid (reported to `checker`). */
export function readHooks(value: unknown, checker: EntryChecker): JobHooks | null | undefined {
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value)) {
    checker.configError('should be a hash');
    return undefined;
  }
  if (!checker.allowedKeys(value, ['pre_get_sources_script'])) return undefined;
  if (value.pre_get_sources_script === undefined || value.pre_get_sources_script === null) return {};
  const script = readScript(value.pre_get_sources_script, checker.child('pre_get_sources_script'));
  return script === null ? undefined : { preGetSourcesScript: script };
}
