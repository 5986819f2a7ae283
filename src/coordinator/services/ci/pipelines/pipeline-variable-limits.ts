import { validationFailed } from '../../../../shared/errors.ts';

/**
 * The most variables one run may be given (API, trigger, a schedule's variables): GitLab's
 * `ci_pipeline_variables_count` plan limit at its self-managed default.
 */
export const MAX_PIPELINE_VARIABLES = 3600;

/** 400 `{"message":{"base":[...]}}`, as GitLab refuses a pipeline over a limit, when `count` is over the bound. */
export function checkPipelineVariableCount(count: number): void {
  if (count <= MAX_PIPELINE_VARIABLES) return;
  throw validationFailed({ base: [`The number of pipeline variables (${count}) exceeds the limit of ${MAX_PIPELINE_VARIABLES}`] });
}

/** The same bound for a schedule, whose variables all become the variables of its runs. */
export function checkScheduleVariableCount(countAfterAdding: number): void {
  if (countAfterAdding <= MAX_PIPELINE_VARIABLES) return;
  throw validationFailed({ base: [`A pipeline schedule has at most ${MAX_PIPELINE_VARIABLES} variables`] });
}
