/**
 * The jobs whose artifacts (and dotenv report variables) a job takes, GitLab's
 * `Ci::BuildDependencies#local`, and those variables (`Ci::Processable#dependency_variables`):
 * one rule for build jobs (their payload) and bridges (their downstream pipeline's variables).
 */
import type { ContextVariable, JobDefinitionBase } from '../../../../ci/model.ts';
import type { CiJobsStore, DotenvVariableRecord, JobArtifactsStore, JobRecord } from '../../../../storage/types-ci-jobs.ts';

type DependencyRules = Pick<JobDefinitionBase, 'needs' | 'dependencies'>;

/**
 * The latest builds of earlier stages, or with `needs` the needed jobs whose artifacts it
 * takes; `dependencies:` narrows either to the jobs named (a `parallel` job is named by its
 * base name).
 */
export function dependencyJobsOf(job: JobRecord, definition: DependencyRules, pipelineJobs: readonly JobRecord[]): JobRecord[] {
  const others = pipelineJobs.filter((other) => other.id !== job.id && other.type === 'build' && !other.retried);
  const named = (names: ReadonlySet<string>) => (other: JobRecord) => names.has(other.name) || names.has(baseNameOf(other));
  let candidates =
    definition.needs === null
      ? others.filter((other) => other.stage_idx < job.stage_idx)
      : others.filter(named(new Set(definition.needs.filter((need) => need.artifacts).map((need) => need.job))));
  if (definition.dependencies !== null) candidates = candidates.filter(named(new Set(definition.dependencies)));
  return candidates;
}

/** Whether the job may need other jobs' artifacts at all (saves the pipeline read for first-stage jobs). */
export function mayHaveDependencies(job: JobRecord, definition: DependencyRules): boolean {
  if (definition.dependencies !== null && definition.dependencies.length === 0) return false;
  if (definition.needs !== null) return definition.needs.some((need) => need.artifacts);
  return job.stage_idx > 0;
}

/** The pipeline's builds, for dependency resolution (one query). */
export async function pipelineBuilds(jobs: Pick<CiJobsStore, 'list'>, pipelineId: number): Promise<JobRecord[]> {
  const { items } = await jobs.list({ pipelineId, types: ['build'] }, { offset: 0, limit: 100_000 });
  return items;
}

/**
 * The dotenv report variables of these jobs (a job's dependencies), oldest job first, as
 * GitLab reads them (by id, unordered SQL): of one key, the newer job's wins.
 */
export async function dotenvVariablesOf(jobArtifacts: Pick<JobArtifactsStore, 'dotenvVariablesForJobs'>, jobs: readonly JobRecord[]): Promise<ContextVariable[]> {
  if (jobs.length === 0) return [];
  return dependencyDotenvFrom(dotenvByJob(await jobArtifacts.dotenvVariablesForJobs(jobs.map((job) => job.id))), jobs);
}

/** Dotenv report variables read for several jobs at once, by job id. */
export function dotenvByJob(variables: readonly DotenvVariableRecord[]): Map<number, ContextVariable[]> {
  const byJob = new Map<number, ContextVariable[]>();
  for (const variable of variables) {
    const list = byJob.get(variable.job_id) ?? [];
    list.push({ key: variable.key, value: variable.value, source: 'dotenv' });
    byJob.set(variable.job_id, list);
  }
  return byJob;
}

/** `dotenvVariablesOf` from variables already read (`dotenvByJob`): the jobs' own, oldest job first. */
export function dependencyDotenvFrom(byJob: ReadonlyMap<number, readonly ContextVariable[]>, jobs: readonly JobRecord[]): ContextVariable[] {
  return [...jobs].sort((a, b) => a.id - b.id).flatMap((job) => byJob.get(job.id) ?? []);
}

function baseNameOf(job: JobRecord): string {
  return job.definition?.baseName ?? job.name;
}
