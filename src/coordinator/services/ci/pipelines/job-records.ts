import { isBridge } from '../../../../ci/bridges.ts';
import { parseDuration } from '../../../../ci/durations.ts';
import { environmentSlug } from '../../../../ci/slug.ts';
import type { CompileContext, JobDefinition, YamlVariable } from '../../../../ci/model.ts';
import { applicableUserVariables } from '../../../../ci/user-variables.ts';
import { jobAttributeVariables } from '../../../../ci/pipeline-variables.ts';
import type { RetryPolicy, RetryWhen } from '../../../../pipeline/types.ts';
import type { NewJob } from '../../../../storage/types-ci-jobs.ts';
import type { PipelineRecord, StageRecord } from '../../../../storage/types-ci.ts';
import { environmentNameErrors } from '../environment-rules.ts';

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
    // What an environment's name and a resource group's key expand with, as GitLab expands them.
    const scope = [...pipelineVariables, ...jobAttributeVariables(job), ...job.variables, ...userVariables];
    const environment = job.environment ? expandVariables(job.environment.name, scope) : null;
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
      ...environmentOptions(environment, job, scope),
      resource_group: resourceGroupKey(job.resourceGroup ? expandVariables(job.resourceGroup, scope) : ''),
      created_at: pipeline.created_at,
    };
  });
}

/**
 * The job's `environment:url` and `auto_stop_in` expanded as its environment name was, plus the
 * environment's own variables (`CI_ENVIRONMENT_NAME`, `CI_ENVIRONMENT_SLUG`); null when not given.
 * A variable either names that is not set yet stays as written: the dotenv report of the job
 * or of its dependencies may set it (GitLab's dynamic environment URL), and its deployment
 * expands it on success.
 */
function environmentOptions(
  environment: string | null, job: JobDefinition, scope: readonly YamlVariable[],
): Pick<NewJob, 'environment_url' | 'environment_auto_stop_in'> {
  if (environment === null || !job.environment) return { environment_url: null, environment_auto_stop_in: null };
  const own = [{ key: 'CI_ENVIRONMENT_NAME', value: environment }, { key: 'CI_ENVIRONMENT_SLUG', value: environmentSlug(environment) }];
  const { url, autoStopIn } = job.environment;
  return {
    environment_url: url ? expandVariables(url, [...scope, ...own], { keepUnknown: true }) : null,
    environment_auto_stop_in: autoStopIn ? expandVariables(autoStopIn, [...scope, ...own], { keepUnknown: true }) : null,
  };
}

/**
 * The instance, group, project and pipeline variables an environment's name and URL are
 * expanded with, after the CI file's (GitLab's `simple_variables`: those of scope `*`, the
 * protected ones on protected refs only).
 */
export function environmentExpansionVariables(context: Pick<CompileContext, 'variables' | 'refProtected'>): YamlVariable[] {
  return applicableUserVariables(context.variables ?? [], context.refProtected ?? false, null).map((variable) => ({ key: variable.key, value: variable.value }));
}

function retryPolicy(job: JobDefinition): RetryPolicy | null {
  if (job.retry.max <= 0) return null;
  const policy = { max: job.retry.max, when: job.retry.when as RetryWhen[] };
  return job.retry.exitCodes ? { ...policy, exitCodes: job.retry.exitCodes } : policy;
}

/**
 * `$NAME` and `${NAME}` from the list (later entries win); unknown names expand to nothing, as
 * GitLab does, or with `keepUnknown` stay as written (GitLab's `expand_existing`); names in
 * `keep` always stay as written.
 */
export function expandVariables(
  text: string, variables: readonly Pick<YamlVariable, 'key' | 'value'>[], options: { keepUnknown?: boolean; keep?: ReadonlySet<string> } = {},
): string {
  const values = new Map(variables.map((variable) => [variable.key, variable.value]));
  return text.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (match, braced: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare ?? '';
    if (options.keep?.has(name)) return match;
    return values.get(name) ?? (options.keepUnknown ? match : '');
  });
}

/**
 * The job's group: GitLab makes none (and the job runs outside any) for an empty key, or one
 * its `Ci::ResourceGroup` validations refuse (over 255 characters, or not an environment name).
 */
function resourceGroupKey(expanded: string): string | null {
  return expanded !== '' && environmentNameErrors(expanded).length === 0 ? expanded : null;
}
