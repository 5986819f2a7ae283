/** `workflow:auto_cancel` and a workflow rule's `auto_cancel` (GitLab 16.8+), with GitLab's errors. */
import type { AutoCancelConfig, AutoCancelOnJobFailure, AutoCancelOnNewCommit, PipelineMetadata } from '../model.ts';
import { isPlainObject } from '../values.ts';
import type { EntryChecker } from './checker.ts';

const ON_NEW_COMMIT: readonly AutoCancelOnNewCommit[] = ['conservative', 'interruptible', 'none'];
const ON_JOB_FAILURE: readonly AutoCancelOnJobFailure[] = ['none', 'all'];

/** The entry read; null when absent; undefined when invalid (reported to `checker`). */
export function readAutoCancel(value: unknown, checker: EntryChecker): AutoCancelConfig | null | undefined {
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value)) {
    checker.configError('should be a hash');
    return undefined;
  }
  if (!checker.allowedKeys(value, ['on_new_commit', 'on_job_failure'])) return undefined;
  const onNewCommit = oneOf(value.on_new_commit, ON_NEW_COMMIT, 'on_new_commit', checker);
  const onJobFailure = oneOf(value.on_job_failure, ON_JOB_FAILURE, 'on_job_failure', checker);
  if (onNewCommit === undefined || onJobFailure === undefined) return undefined;
  return { onNewCommit, onJobFailure };
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], attribute: string, checker: EntryChecker): T | null | undefined {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    checker.attributeError(attribute, 'should be a string');
    return undefined;
  }
  if (!(allowed as readonly string[]).includes(value)) {
    checker.attributeError(attribute, `must be one of: ${allowed.join(', ')}`);
    return undefined;
  }
  return value as T;
}

/** The rule's strategies over the workflow's, key by key (GitLab merges the two hashes). */
export function mergeAutoCancel(workflow: AutoCancelConfig | null, rule: AutoCancelConfig | null): Omit<PipelineMetadata, 'name'> {
  return {
    autoCancelOnNewCommit: rule?.onNewCommit ?? workflow?.onNewCommit ?? 'conservative',
    autoCancelOnJobFailure: rule?.onJobFailure ?? workflow?.onJobFailure ?? 'none',
  };
}
