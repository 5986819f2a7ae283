/**
 * Environments and deployments of jobs with `environment:` (reference §10, GitLab ≥ 11.5): a
 * build job that starts an environment gets the environment (found or created) and a
 * `created` deployment when the job is created; the deployment's status then follows the
 * job's; a successful stop job stops its environment. A job whose expanded environment name
 * is refused fails with `environment_creation_failure`. Runs inside the transaction that
 * creates or moves the jobs, through the CI stores only.
 */
import { environmentSlug } from '../../../../ci/slug.ts';
import type { FailureReason, JobStatus, PipelineJob } from '../../../../pipeline/types.ts';
import type { CiStores } from '../../../../storage/types-ci-transactions.ts';
import type { JobRecord, NewJob } from '../../../../storage/types-ci-jobs.ts';
import type { DeploymentRecord, DeploymentStatus } from '../../../../storage/types-environments.ts';
import { recordDeploymentLinks } from '../deployment-merge-requests.ts';
import { environmentNameErrors, externalUrlErrors } from '../environment-rules.ts';

type DeploymentStores = Pick<CiStores, 'environments' | 'deployments' | 'jobs' | 'tasks'>;

export type EnvironmentAction = 'start' | 'stop' | 'prepare' | 'verify' | 'access';

/** What a job does to its environment; null for jobs without one, bridges and statuses. */
export function environmentActionOf(job: Pick<JobRecord, 'type' | 'environment' | 'definition'>): EnvironmentAction | null {
  if (job.type !== 'build' || job.environment === null) return null;
  return job.definition?.environment?.action ?? 'start';
}

/**
 * GitLab's `Environments::CreateForJobService`: a job with `environment:` whose name, once
 * expanded, GitLab would refuse (blank, too long, other characters) gets no environment and
 * is failed with `environment_creation_failure` instead of running.
 */
export function isEnvironmentRefused(job: { type: JobRecord['type']; environment?: string | null }): boolean {
  return job.type === 'build' && job.environment != null && environmentNameErrors(job.environment).length > 0;
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
 * New jobs (pipeline creation, retries): each build job with an environment gets it, created
 * when missing (GitLab's `Environments::CreateForJobService`, whatever the job's action); one
 * that starts it gives it `urlOf`'s expanded URL and gets a deployment in the status its job
 * has. An environment name GitLab would refuse records nothing (its job fails,
 * `isEnvironmentRefused`); a URL it would refuse is left out.
 */
export async function recordDeployments(
  stores: DeploymentStores,
  jobs: readonly JobRecord[],
  now: string,
  urlOf: (job: JobRecord) => string | null = () => null,
): Promise<DeploymentRecord[]> {
  const recorded: DeploymentRecord[] = [];
  for (const job of jobs) {
    const action = environmentActionOf(job);
    if (action === null || job.environment === null) continue;
    if (environmentNameErrors(job.environment).length > 0) continue;
    const url = action === 'start' ? urlOf(job) : null;
    const externalUrl = url !== null && externalUrlErrors(url).length === 0 ? url : null;
    let environment = await stores.environments.findOrCreate({
      project_id: job.project_id, name: job.environment, slug: environmentSlug(job.environment), external_url: externalUrl, state: 'available', created_at: now, updated_at: now,
    });
    if (!environment || action !== 'start') continue;
    if (environment.external_url === null && externalUrl !== null) {
      environment = (await stores.environments.update(environment.id, { external_url: externalUrl, updated_at: now })) ?? environment;
    }
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
 * brought to its job's status (a runner's claim moves a job to `running` before processing,
 * so statuses are compared, not only the event's changes), a successful deployment making its
 * environment available again (and a task linking the merge requests it shipped) and a
 * successful stop job stopping its environment. Answers how many tasks it recorded.
 */
export async function followJobMoves(stores: DeploymentStores, pipelineId: number, moves: JobMoves, now: string): Promise<number> {
  let tasks = 0;
  if (moves.createdJobIds.length > 0) await recordDeployments(stores, await stores.jobs.findByIds(moves.createdJobIds), now);
  const statusOf = new Map(moves.jobs.map((job) => [job.id, job.status]));
  for (const deployment of await stores.deployments.listForPipeline(pipelineId)) {
    const jobStatus = deployment.job_id === null ? undefined : statusOf.get(deployment.job_id);
    const status = jobStatus && deploymentStatusFor(jobStatus);
    if (!status || status === deployment.status) continue;
    await stores.deployments.update(deployment.id, { status, updated_at: now, finished_at: FINISHED.includes(status) ? now : null });
    if (status !== 'success') continue;
    await setEnvironmentState(stores, deployment.project_id, deployment.environment_id, 'available', now);
    await recordDeploymentLinks(stores, deployment.id, now);
    tasks += 1;
  }
  if (moves.succeededJobIds.length === 0) return tasks;
  for (const job of await stores.jobs.findByIds(moves.succeededJobIds)) {
    if (environmentActionOf(job) !== 'stop' || job.environment === null) continue;
    const environment = await stores.environments.findByName(job.project_id, job.environment);
    if (environment) await setEnvironmentState(stores, job.project_id, environment.id, 'stopped', now);
  }
  return tasks;
}

async function setEnvironmentState(stores: DeploymentStores, projectId: number, environmentId: number, state: 'available' | 'stopped', now: string): Promise<void> {
  const environment = await stores.environments.findInProject(projectId, environmentId);
  if (environment && environment.state !== state) await stores.environments.update(environment.id, { state, updated_at: now });
}
