/**
 * A job's `environment:url` and `auto_stop_in`, expanded as GitLab expands them: when the job
 * is created with the variables known then (the job keeps the values of those they name), and
 * again when its deployment succeeds (GitLab's `Deployments::UpdateEnvironmentService`, which
 * expands them as written with all of the job's variables, `Ci::Build#variables`): the
 * predefined and CI file variables, then the dotenv report variables of its dependencies
 * (`dependency_variables` in its scoped variables), then the instance, group, project and
 * pipeline variables, then its own report's (`job_variables`), then the environment's own
 * `CI_ENVIRONMENT_NAME` and `CI_ENVIRONMENT_SLUG` (its persisted environment variables), the
 * later winning.
 */
import type { JobDefinition, YamlVariable } from '../../../../ci/model.ts';
import { environmentSlug } from '../../../../ci/slug.ts';
import type { CiJobsStore, DotenvVariableRecord, EnvironmentVariable, JobArtifactsStore, JobRecord } from '../../../../storage/types-ci-jobs.ts';
import { dependencyDotenvFrom, dependencyJobsOf, dotenvByJob, mayHaveDependencies, pipelineBuilds } from './job-dependencies.ts';
import { expandVariables, expandVariablesNested, variableNames } from './variable-expansion.ts';

type DotenvVariable = Pick<DotenvVariableRecord, 'key' | 'value'>;

/** What a job row keeps of its environment for its deployment's success. */
export type EnvironmentFields = Pick<JobRecord, 'definition' | 'environment' | 'environment_url' | 'environment_auto_stop_in' | 'environment_variables'>;

/** The dotenv report variables a job's URL and `auto_stop_in` expand with when its deployment succeeds. */
export interface DeploymentReports {
  /** Of the jobs whose artifacts it takes, oldest job first. */
  dependencies: readonly DotenvVariable[];
  /** Its own report's. */
  own: readonly DotenvVariable[];
}

export const NO_REPORTS: DeploymentReports = { dependencies: [], own: [] };

/** What a job's URL and `auto_stop_in` expand with when it is created, in two parts by GitLab's order. */
export interface CreationScope {
  /** Predefined and CI file variables (workflow's too): a dependency's report overrides them. */
  ci: readonly YamlVariable[];
  /** Instance, group, project (scope `*`) and pipeline variables: only the job's own report overrides them. */
  settings: readonly YamlVariable[];
}

/** The variables no report overrides (GitLab lists them last, its persisted environment variables). */
const ENVIRONMENT_OWN = new Set(['CI_ENVIRONMENT_NAME', 'CI_ENVIRONMENT_SLUG']);

function environmentOwnVariables(environment: string): YamlVariable[] {
  return [{ key: 'CI_ENVIRONMENT_NAME', value: environment }, { key: 'CI_ENVIRONMENT_SLUG', value: environmentSlug(environment) }];
}

/**
 * A new job's `environment:url` and `auto_stop_in` expanded with what is known when it is
 * created (a variable not set then stays as written; the environment's URL and first auto-stop
 * time come from these), and the values the variables they name had then
 * (`environment_variables`, for its deployment's success); null when not given.
 */
export function environmentOptions(
  environment: string | null, job: JobDefinition, scope: CreationScope,
): Pick<JobRecord, 'environment_url' | 'environment_auto_stop_in' | 'environment_variables'> {
  if (environment === null || !job.environment) return { environment_url: null, environment_auto_stop_in: null, environment_variables: null };
  const known = [...scope.ci, ...scope.settings, ...environmentOwnVariables(environment)];
  const { url, autoStopIn } = job.environment;
  return {
    environment_url: url ? expandVariables(url, known, { keepUnknown: true }) : null,
    environment_auto_stop_in: autoStopIn ? expandVariables(autoStopIn, known, { keepUnknown: true }) : null,
    environment_variables: url || autoStopIn ? namedVariables([url ?? '', autoStopIn ?? ''], scope) : null,
  };
}

/**
 * The variables of the scope the texts name (the environment's own aside), each with its
 * winning value and part, and those their values name in turn (expanded at success).
 */
function namedVariables(texts: readonly string[], scope: CreationScope): EnvironmentVariable[] {
  const ci = new Map(scope.ci.map((variable) => [variable.key, variable]));
  const settings = new Map(scope.settings.map((variable) => [variable.key, variable]));
  const kept = new Map<string, EnvironmentVariable>();
  const pending = texts.flatMap((text) => variableNames(text));
  for (let name = pending.shift(); name !== undefined; name = pending.shift()) {
    if (kept.has(name) || ENVIRONMENT_OWN.has(name)) continue;
    const setting = settings.get(name);
    const variable = setting ?? ci.get(name);
    if (variable === undefined) continue;
    kept.set(name, { key: name, value: variable.value, ...(setting ? { settings: true as const } : {}), ...(variable.raw ? { raw: true as const } : {}) });
    if (!variable.raw) pending.push(...variableNames(variable.value));
  }
  return [...kept.values()];
}

/**
 * The job's URL and `auto_stop_in` as its deployment's success expands them, an unknown
 * variable to nothing and a variable's own references first; null where the job gives none.
 * A job created before migration 058 kept only its values expanded at creation: what they
 * still name expands from the reports.
 */
export function expandedAtSuccess(job: EnvironmentFields, reports: DeploymentReports): { url: string | null; autoStopIn: string | null } {
  const written = job.definition?.environment;
  if (job.environment_variables === null || !written || job.environment === null) {
    const late = [...reports.dependencies, ...reports.own];
    return { url: expandedWith(job.environment_url, late), autoStopIn: expandedWith(job.environment_auto_stop_in, late) };
  }
  const kept = job.environment_variables;
  const scope = [
    ...kept.filter((variable) => !variable.settings), ...reports.dependencies, ...kept.filter((variable) => variable.settings),
    ...reports.own, ...environmentOwnVariables(job.environment),
  ];
  return {
    url: written.url ? expandVariablesNested(written.url, scope) : null,
    autoStopIn: written.autoStopIn ? expandVariablesNested(written.autoStopIn, scope) : null,
  };
}

function expandedWith(value: string | null, variables: readonly DotenvVariable[]): string | null {
  return value === null ? null : expandVariables(value, variables);
}

/** Whether a report can change what the job's URL or `auto_stop_in` expands to at success. */
export function readsReports(job: EnvironmentFields): boolean {
  const written = job.definition?.environment;
  if (job.environment_variables === null || !written) return namesVariable(job.environment_url) || namesVariable(job.environment_auto_stop_in);
  return [written.url ?? '', written.autoStopIn ?? ''].some((text) => variableNames(text).some((name) => !ENVIRONMENT_OWN.has(name)));
}

/** A value kept at creation still names a variable (one not set when its job was created). */
export function namesVariable(value: string | null): boolean {
  return value !== null && variableNames(value).length > 0;
}

/**
 * The reports of the jobs whose URL or `auto_stop_in` a report can change (`readsReports`), by
 * job id: the jobs' own and their dependencies'. The pipeline's builds are read once, only when
 * such a job may have dependencies; the reports in one query.
 */
export async function deploymentReports(
  stores: { jobs: Pick<CiJobsStore, 'list'>; jobArtifacts: Pick<JobArtifactsStore, 'dotenvVariablesForJobs'> }, jobs: readonly JobRecord[],
): Promise<Map<number, DeploymentReports>> {
  const byJob = new Map<number, DeploymentReports>();
  const reading = jobs.filter(readsReports);
  if (reading.length === 0) return byJob;
  const buildsOfPipeline = new Map<number, JobRecord[]>();
  const dependenciesOf = new Map<number, JobRecord[]>();
  for (const job of reading) {
    if (job.definition === null || !mayHaveDependencies(job, job.definition)) continue;
    const builds = buildsOfPipeline.get(job.pipeline_id) ?? (await pipelineBuilds(stores.jobs, job.pipeline_id));
    buildsOfPipeline.set(job.pipeline_id, builds);
    dependenciesOf.set(job.id, dependencyJobsOf(job, job.definition, builds));
  }
  const reportingJobIds = new Set([...reading.map((job) => job.id), ...[...dependenciesOf.values()].flat().map((job) => job.id)]);
  const reports = dotenvByJob(await stores.jobArtifacts.dotenvVariablesForJobs([...reportingJobIds]));
  for (const job of reading) {
    byJob.set(job.id, { dependencies: dependencyDotenvFrom(reports, dependenciesOf.get(job.id) ?? []), own: reports.get(job.id) ?? [] });
  }
  return byJob;
}
