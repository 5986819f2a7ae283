import { isBridge } from '../../../../ci/bridges.ts';
import { parseDuration } from '../../../../ci/durations.ts';
import type { CompileContext, JobDefinition, YamlVariable } from '../../../../ci/model.ts';
import { applicableUserVariables } from '../../../../ci/user-variables.ts';
import { jobAttributeVariables } from '../../../../ci/pipeline-variables.ts';
import type { RetryPolicy, RetryWhen } from '../../../../pipeline/types.ts';
import type { NewJob } from '../../../../storage/types-ci-jobs.ts';
import type { PipelineRecord, StageRecord } from '../../../../storage/types-ci.ts';
import { environmentNameErrors } from '../environment-rules.ts';
import { environmentOptions } from './environment-expansion.ts';
import { expandVariablesNested } from './variable-expansion.ts';

export { expandVariables } from './variable-expansion.ts';

/**
 * The stored rows of a compiled pipeline's jobs, all `created`: processing inputs (when,
 * allow_failure, needs, retry, start_in) in the state rules' shape, the definition for the
 * job payload, bridges as `bridge`.
 */
export function jobRecords(
  pipeline: PipelineRecord, stages: readonly StageRecord[], jobs: readonly JobDefinition[], pipelineVariables: readonly YamlVariable[], userVariables: readonly YamlVariable[] = [],
): NewJob[] {
  const stageOf = new Map(stages.map((stage) => [stage.name, stage]));
  return jobs.map((job): NewJob => {
    const stage = stageOf.get(job.stage);
    // What an environment's name and a resource group's key expand with, as GitLab expands them:
    // nested too (`simple_variables.sort_and_expand_all`), so `name: $ENV` with `ENV: review/$CI_COMMIT_REF_SLUG` is `review/main`.
    const ciVariables = [...pipelineVariables, ...jobAttributeVariables(job), ...job.variables];
    const scope = [...ciVariables, ...userVariables];
    const environment = job.environment ? expandVariablesNested(job.environment.name, scope) : null;
    return {
      pipeline_id: pipeline.id,
      project_id: pipeline.project_id,
      stage_id: stage?.id ?? null,
      stage: job.stage,
      stage_idx: stage?.position ?? job.stageIndex,
      name: job.name,
      type: isBridge(job) ? 'bridge' : 'build',
      status: 'created',
      when: job.when,
      allow_failure: job.allowFailure,
      user_id: pipeline.user_id,
      tag_list: [...new Set(job.tags)].sort(),
      protected: pipeline.protected,
      ref: pipeline.ref,
      sha: pipeline.sha,
      tag: pipeline.tag,
      definition: job,
      needs: job.needs === null ? null : job.needs.map((need) => ({ name: need.job, optional: need.optional, artifacts: need.artifacts })),
      retry: retryPolicy(job),
      start_in_seconds: job.when === 'delayed' && job.startIn !== null ? parseDuration(job.startIn) : null,
      environment,
      ...environmentOptions(environment, job, { ci: ciVariables, settings: userVariables }),
      resource_group: resourceGroupKey(job.resourceGroup ? expandVariablesNested(job.resourceGroup, scope) : ''),
      created_at: pipeline.created_at,
    };
  });
}

/**
 * The instance, group, project and pipeline variables an environment's name and URL are
 * expanded with, after the CI file's (GitLab's `simple_variables`: those of scope `*`, the
 * protected ones on protected refs only).
 */
export function environmentExpansionVariables(context: Pick<CompileContext, 'variables' | 'refProtected'>): YamlVariable[] {
  return applicableUserVariables(context.variables ?? [], context.refProtected ?? false, null).map((variable) => ({ key: variable.key, value: variable.value, ...(variable.raw ? { raw: true as const } : {}) }));
}

function retryPolicy(job: JobDefinition): RetryPolicy | null {
  if (job.retry.max <= 0) return null;
  const policy = { max: job.retry.max, when: job.retry.when as RetryWhen[] };
  return job.retry.exitCodes ? { ...policy, exitCodes: job.retry.exitCodes } : policy;
}

/**
 * The job's group: GitLab makes none (and the job runs outside any) for an empty key, or one
 * its `Ci::ResourceGroup` validations refuse (over 255 characters, or not an environment name).
 */
function resourceGroupKey(expanded: string): string | null {
  return expanded !== '' && environmentNameErrors(expanded).length === 0 ? expanded : null;
}
