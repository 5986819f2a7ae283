/**
 * Environments and deployments of jobs with `environment:` (reference §10, GitLab ≥ 11.5): a
 * build or bridge job (bridges since GitLab 16.4) that starts an environment gets the
 * environment (found or created) and a `created` deployment when the job is created; the
 * deployment's status then follows the job's; a successful deployment renews its
 * environment's URL, auto-stop time and tier (the job's URL and `auto_stop_in` expanded then
 * with its variables and the dotenv reports of the job and its dependencies, in GitLab's
 * order: environment-expansion.ts); a successful stop job stops its environment. A job whose
 * expanded environment name is refused fails with `environment_creation_failure`.
 * Runs inside the transaction that creates or moves the jobs, through the CI stores only.
 */
import { parseDuration } from '../../../../ci/durations.ts';
import { environmentTier } from '../../../../ci/environment-tier.ts';
import { environmentSlug } from '../../../../ci/slug.ts';
import type { FailureReason, JobStatus, PipelineJob } from '../../../../pipeline/types.ts';
import type { CiStores } from '../../../../storage/types-ci-transactions.ts';
import type { JobRecord, NewJob } from '../../../../storage/types-ci-jobs.ts';
import type { DeploymentRecord, DeploymentStatus, EnvironmentChanges } from '../../../../storage/types-environments.ts';
import { recordDeploymentLinks } from '../deployment-merge-requests.ts';
import { environmentNameErrors, externalUrlErrors } from '../environment-rules.ts';
import { deploymentReports, expandedAtSuccess, NO_REPORTS, type DeploymentReports } from './environment-expansion.ts';
import { expandVariables } from './variable-expansion.ts';

type DeploymentStores = Pick<CiStores, 'environments' | 'deployments' | 'jobs' | 'tasks' | 'jobArtifacts'>;

export type EnvironmentAction = 'start' | 'stop' | 'prepare' | 'verify' | 'access';

/** What a job does to its environment; null for jobs without one and for generic statuses. */
export function environmentActionOf(job: Pick<JobRecord, 'type' | 'environment' | 'definition'>): EnvironmentAction | null {
  if (!hasEnvironmentKeyword(job.type) || job.environment === null) return null;
  return job.definition?.environment?.action ?? 'start';
}

/**
 * GitLab's `Environments::CreateForJobService`: a job with `environment:` whose name, once
 * expanded, GitLab would refuse (blank, too long, other characters) gets no environment and
 * is failed with `environment_creation_failure` instead of running.
 */
export function isEnvironmentRefused(job: { type: JobRecord['type']; environment?: string | null }): boolean {
  return hasEnvironmentKeyword(job.type) && job.environment != null && environmentNameErrors(job.environment).length > 0;
}

/** GitLab's Processable jobs: builds and bridges (generic statuses have no CI file entry). */
function hasEnvironmentKeyword(type: JobRecord['type']): boolean {
  return type === 'build' || type === 'bridge';
}

/** New jobs of a pipeline being created: those whose environment is refused are saved `failed`, as GitLab's creation chain saves them. */
export function failRefusedEnvironments(jobs: readonly NewJob[]): NewJob[] {
  return jobs.map((job) => (isEnvironmentRefused(job) ? { ...job, status: 'failed', failure_reason: ENVIRONMENT_CREATION_FAILURE } : job));
}

export const ENVIRONMENT_CREATION_FAILURE = 'environment_creation_failure' satisfies FailureReason;

/**
 * GitLab's `Deployment#sync_status_with`: a manual job's deployment is `blocked`; statuses a
 * deployment has are copied; others (pending, scheduled, …) leave it as it is.
 */
export function deploymentStatusFor(jobStatus: JobStatus): DeploymentStatus | undefined {
  switch (jobStatus) {
    case 'manual':
      return 'blocked';
    case 'created':
    case 'running':
    case 'success':
    case 'failed':
    case 'canceled':
    case 'skipped':
      return jobStatus;
    default:
      return undefined;
  }
}

const FINISHED: readonly DeploymentStatus[] = ['success', 'failed', 'canceled'];

/**
 * New jobs (pipeline creation, retries): each build or bridge job with an environment gets it,
 * created when missing (GitLab's `Environments::CreateForJobService`, whatever the job's
 * action) with the job's tier (declared, else guessed from the name), auto-stop time and, for a
 * merge request pipeline's job at creation, its merge request (`mergeRequestId`); one
 * that starts it gets a deployment in the status its job has (the URL comes at its success).
 * An environment name GitLab would refuse records nothing (its job fails,
 * `isEnvironmentRefused`); a URL it would refuse is left out.
 */
export async function recordDeployments(stores: DeploymentStores, jobs: readonly JobRecord[], now: string, mergeRequestId: number | null = null): Promise<DeploymentRecord[]> {
  const recorded: DeploymentRecord[] = [];
  for (const job of jobs) {
    const action = environmentActionOf(job);
    if (action === null || job.environment === null) continue;
    if (environmentNameErrors(job.environment).length > 0) continue;
    // No URL yet: the environment gets its job's at the deployment's success (renewedByDeployment),
    // as GitLab sets it; a deployment that fails leaves the environment's as it was.
    const environment = await stores.environments.findOrCreate({
      project_id: job.project_id, name: job.environment, slug: environmentSlug(job.environment), external_url: null, state: 'available',
      tier: environmentTier(job.environment, job.definition?.environment?.deploymentTier), auto_stop_at: initialAutoStopTime(job, now), merge_request_id: mergeRequestId,
      created_at: now, updated_at: now,
    });
    if (!environment || action !== 'start') continue;
    const status = deploymentStatusFor(job.status) ?? 'created';
    recorded.push(
      await stores.deployments.create({
        project_id: job.project_id, environment_id: environment.id, job_id: job.id, ref: job.ref, tag: job.tag, sha: job.sha, user_id: job.user_id, status,
        on_stop: job.definition?.environment?.onStop ?? null, created_at: now, updated_at: now, finished_at: FINISHED.includes(status) ? now : null,
      }),
    );
  }
  return recorded;
}

export interface JobMoves {
  /** Every job of the pipeline after the event, with its status. */
  jobs: readonly PipelineJob[];
  /** Jobs the event created (retries). */
  createdJobIds: readonly number[];
  /** Jobs the event moved to `success`. */
  succeededJobIds: readonly number[];
}

/**
 * After an event: deployments for the jobs it created, every deployment of the pipeline
 * (`deployments`, as read before the event) brought to its job's status (a runner's claim
 * moves a job to `running` before processing, so statuses are compared, not only the event's
 * changes), a successful deployment making its environment available again and
 * renewing it (`renewedByDeployment`; and a task linking the merge requests it shipped) and a
 * successful stop job stopping its environment. Answers how many tasks it recorded.
 */
export async function followJobMoves(stores: DeploymentStores, deployments: readonly DeploymentRecord[], moves: JobMoves, now: string): Promise<number> {
  const created = moves.createdJobIds.length > 0 ? await recordDeployments(stores, await stores.jobs.findByIds(moves.createdJobIds), now) : [];
  const statusOf = new Map(moves.jobs.map((job) => [job.id, job.status]));
  const succeeded: DeploymentRecord[] = [];
  for (const deployment of [...deployments, ...created]) {
    const jobStatus = deployment.job_id === null ? undefined : statusOf.get(deployment.job_id);
    const status = jobStatus && deploymentStatusFor(jobStatus);
    if (!status || status === deployment.status) continue;
    await stores.deployments.update(deployment.id, { status, updated_at: now, finished_at: FINISHED.includes(status) ? now : null });
    if (status === 'success') succeeded.push(deployment);
  }
  let tasks = 0;
  if (succeeded.length > 0) {
    const jobs = new Map((await stores.jobs.findByIds(succeeded.flatMap((deployment) => (deployment.job_id === null ? [] : [deployment.job_id])))).map((job) => [job.id, job]));
    const reports = await deploymentReports(stores, [...jobs.values()]);
    for (const deployment of succeeded) {
      const job = deployment.job_id === null ? undefined : jobs.get(deployment.job_id);
      const renewed = job ? renewedByDeployment(job, reports.get(job.id) ?? NO_REPORTS, now) : {};
      if (renewed !== null) await changeEnvironment(stores, deployment.project_id, deployment.environment_id, { state: 'available', ...renewed }, now);
      await recordDeploymentLinks(stores, deployment.id, now);
      tasks += 1;
    }
  }
  if (moves.succeededJobIds.length === 0) return tasks;
  for (const job of await stores.jobs.findByIds(moves.succeededJobIds)) {
    if (environmentActionOf(job) !== 'stop' || job.environment === null) continue;
    const environment = await stores.environments.findByName(job.project_id, job.environment);
    if (environment) await changeEnvironment(stores, job.project_id, environment.id, STOPPED, now);
  }
  return tasks;
}

/** A stopped environment has no auto-stop time (GitLab clears it on every transition to stopped). */
export const STOPPED = { state: 'stopped', auto_stop_at: null } as const satisfies EnvironmentChanges;

/**
 * What a successful deployment renews (GitLab's `Deployments::UpdateEnvironmentService`), its
 * job's URL and `auto_stop_in` expanded as written with the job's variables and the dotenv
 * report variables of the job and of its dependencies (`expandedAtSuccess`: a dynamic
 * environment URL or auto-stop time): the external URL when the job's expands to one GitLab
 * accepts, the auto-stop time when the job gives `auto_stop_in`, the tier when the job declares
 * one. Null, nothing renewed, when that `auto_stop_in` does not read as a duration: GitLab's
 * `Environment#auto_stop_in=` raises, which undoes the whole renewal (and keeps a stopped
 * environment stopped).
 */
function renewedByDeployment(job: JobRecord, reports: DeploymentReports, now: string): EnvironmentChanges | null {
  const changes: EnvironmentChanges = {};
  const expanded = expandedAtSuccess(job, reports);
  const url = acceptedUrl(expanded.url);
  if (url !== null) changes.external_url = url;
  const autoStopIn = expanded.autoStopIn;
  if (autoStopIn !== null) {
    const autoStopAt = autoStopTime(autoStopIn, now);
    if (autoStopAt === UNREADABLE) return null;
    changes.auto_stop_at = autoStopAt;
  }
  const tier = job.definition?.environment?.deploymentTier;
  if (tier) changes.tier = tier;
  return changes;
}

/**
 * A new environment's auto-stop time: its job's `auto_stop_in` with the variables not set yet
 * expanded to nothing, as GitLab's `Environments::CreateForJobService` expands it (no report
 * exists yet); null without one or when it does not read as a duration.
 */
function initialAutoStopTime(job: JobRecord, now: string): string | null {
  const autoStopIn = job.environment_auto_stop_in === null ? null : expandVariables(job.environment_auto_stop_in, []);
  const autoStopAt = autoStopIn === null ? null : autoStopTime(autoStopIn, now);
  return autoStopAt === UNREADABLE ? null : autoStopAt;
}

/** An expanded `environment:url` GitLab saves: not empty, an http(s) URL of at most 255 characters. */
function acceptedUrl(url: string | null): string | null {
  return url !== null && url !== '' && externalUrlErrors(url).length === 0 ? url : null;
}

const UNREADABLE = Symbol('an auto_stop_in that is not a duration');

/**
 * `now` plus an expanded `auto_stop_in`, as GitLab's `Environment#auto_stop_in=` reads it
 * (ChronicDuration, as `expire_in`): null, no auto-stop, for `never` and for what reads as no
 * time (empty, zero); UNREADABLE when it does not read as a duration.
 */
function autoStopTime(autoStopIn: string, now: string): string | null | typeof UNREADABLE {
  if (autoStopIn.toLowerCase() === 'never' || autoStopIn.trim() === '') return null;
  const seconds = parseDuration(autoStopIn);
  if (seconds === null) return UNREADABLE;
  return seconds === 0 ? null : new Date(Date.parse(now) + seconds * 1000).toISOString();
}

async function changeEnvironment(stores: DeploymentStores, projectId: number, environmentId: number, changes: EnvironmentChanges, now: string): Promise<void> {
  const environment = await stores.environments.findInProject(projectId, environmentId);
  if (!environment) return;
  const changed = Object.entries(changes).some(([key, value]) => environment[key as keyof EnvironmentChanges] !== value);
  if (changed) await stores.environments.update(environment.id, { ...changes, updated_at: now });
}
