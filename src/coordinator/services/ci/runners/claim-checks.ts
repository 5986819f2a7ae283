import type { BuildJobDefinition, JobDefinition } from '../../../../ci/model.ts';
import type { JobRecord } from '../../../../storage/types-ci-jobs.ts';

/** What the runner says it supports (`info.features` of the job request). */
export type RunnerFeatures = Readonly<Record<string, boolean>>;

/** Why a claimed job goes back failed instead of to the runner; null: it goes to the runner. */
export type ClaimRefusal = 'data_integrity_failure' | 'runner_unsupported' | 'missing_dependency_failure' | 'archived_failure';

/** A claimed job's definition when it is a build a runner can run (bridges and definition-less rows are not). */
export function buildDefinitionOf(job: JobRecord): BuildJobDefinition | undefined {
  const definition: JobDefinition | null = job.definition;
  if (!definition) return undefined;
  const trigger: unknown = (definition as { trigger?: unknown }).trigger;
  return trigger === null || trigger === undefined ? (definition as BuildJobDefinition) : undefined;
}

/**
 * GitLab's `Ci::Build#supported_runner?`: features a job needs from the runner that takes it
 * (`RUNNER_FEATURES`): report artifacts need `upload_multiple_artifacts`, `artifacts:exclude`
 * needs `artifacts_exclude`, `allow_failure: exit_codes` needs `return_exit_code` (a runner
 * that sends no exit code could never have the failure allowed), a `release:` step needs
 * `multi_build_steps`. (The `refspecs` feature is not asked of runners here.)
 */
export function lacksRunnerFeature(definition: BuildJobDefinition, features: RunnerFeatures): boolean {
  const artifacts = definition.artifacts;
  if (artifacts && Object.keys(artifacts.reports).length > 0 && features.upload_multiple_artifacts !== true) return true;
  if (artifacts && artifacts.exclude.length > 0 && features.artifacts_exclude !== true) return true;
  if (allowedExitCodesOf(definition).length > 0 && features.return_exit_code !== true) return true;
  if (definition.release && features.multi_build_steps !== true) return true;
  return false;
}

/** GitLab's `options[:allow_failure_criteria][:exit_codes]` ([] for definitions stored before it). */
export function allowedExitCodesOf(definition: JobDefinition): readonly number[] {
  return definition.allowFailureExitCodes ?? [];
}

/** GitLab's `valid_dependency?`: artifacts not expired, job not erased. */
export function isValidDependency(dependency: JobRecord, now: string): boolean {
  if (dependency.erased_at !== null) return false;
  return dependency.artifacts_expire_at === null || dependency.artifacts_expire_at > now;
}
