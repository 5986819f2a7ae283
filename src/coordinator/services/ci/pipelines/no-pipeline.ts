import { isGantryError, type ErrorCode, type GantryError } from '../../../../shared/errors.ts';

/** Refusals that mean "this run gets no pipeline" (no CI file, CI off, workflow rules, ref gone): not failures of a push or schedule task. */
const NO_PIPELINE: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'GANTRY_E_PIPELINES_DISABLED',
  'GANTRY_E_PIPELINE_REF_FORBIDDEN',
  'GANTRY_E_CI_CONFIG_MISSING',
  'GANTRY_E_PIPELINE_FILTERED',
  'GANTRY_E_REF_NOT_FOUND',
  'GANTRY_E_COMMIT_NOT_FOUND',
]);

export function isNoPipelineRefusal(error: unknown): error is GantryError {
  return isGantryError(error) && NO_PIPELINE.has(error.code);
}
