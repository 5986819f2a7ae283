/**
 * gitlab-runner's stage attempts (`GET_SOURCES_ATTEMPTS`, `RESTORE_CACHE_ATTEMPTS`,
 * `ARTIFACT_DOWNLOAD_ATTEMPTS`): how many times a stage runs before the job fails.
 */
import { JobFailure } from './failure.ts';
import { goInt } from './go-values.ts';

export type AttemptedStage = 'get_sources' | 'restore_cache' | 'download_artifacts';

/**
 * The attempts a stage's variable asks for: 1 when unset or not a number Go's `Atoi` reads; a
 * number outside 1–10 fails the job when the stage comes, whether or not it has work to do, as
 * gitlab-runner checks the range before it knows.
 */
export function stageAttempts(value: string | undefined, stage: AttemptedStage): number {
  const attempts = goInt(value) ?? 1;
  if (attempts < 1 || attempts > 10) throw new JobFailure(`number of attempts out of the range [1, 10] for stage: ${stage}`, 'runner_system_failure');
  return attempts;
}

/**
 * EXECUTOR_JOB_SECTION_ATTEMPTS (docker): 1 when unset or not a number; outside 1–10 it is
 * warned about and 1, as gitlab-runner's build settings take it.
 */
export function executorSectionAttempts(value: string | undefined, warn: (line: string) => void): number {
  const attempts = goInt(value) ?? 1;
  if (attempts >= 1 && attempts <= 10) return attempts;
  warn('EXECUTOR_JOB_SECTION_ATTEMPTS: number of attempts out of the range [1, 10], using default 1');
  return 1;
}
